"""Which papers of an edition one subscriber gets, in which order, and why (pure).

The edition's trending order is the base; a subscriber's interests, followed topics and
authors, papers close to their thumbs up (:mod:`digest.profile_match`: embeddings and tf-idf)
and far from their thumbs down (embedding cosine) lift papers; their categories,
mutes and excluded phrases (by meaning) remove them; at most ``max_per_topic`` papers of one
topic keep the digest diverse. Every pick carries one line saying why it is there: the
subscriber's own reason when there is one (a follow, an interest, the liked paper it is closest
to), else its trending rank and the scorer's first reasons in words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from accounts.saved_searches import SavedQuery
from app.core.tex import readable
from app.core.vectors import Matrix
from digest.pick_reasons import follow_reason, quoted, trending_reason
from digest.profile_match import PoolIndex, fuse, paper_text
from digest.taste_space import TasteSpace

# A reader's own signals are standard scores over the papers being chosen from (about -2 to
# 4), so that each weighs the same whatever the model's cosines look like: a paper one
# standard deviation closer than the day's average to what the reader liked, or to one of
# their interests, gains what the whole edition's trending span gives (first place against
# a paper outside the edition). Chosen on 2025 pairs (docs/ranking.md): between 0.75 and 3
# the thumbs-up recall was within noise, below 0.5 the crowd drowned the reader.
LIKED_WEIGHT = 1.0
INTEREST_WEIGHT = 1.0
# Thumbs down push away by a third as much: one dislike names a subject less surely than a
# like does.
FEEDBACK_WEIGHT = 0.3
FOLLOW_BONUS = 0.5
# An interest explains a pick only when it is at least this close to the paper.
INTEREST_REASON_COSINE = 0.3


@dataclass(frozen=True, slots=True)
class EditionPaper:
    arxiv_id: str
    title: str
    authors: list[str]
    author_keys: list[str]
    categories: list[str]
    score: float
    components: dict[str, float]
    topic_id: int | None
    topic_label: str | None
    # The calibrated chance of being featured (day editions only) and, biggest first, the words
    # of the reasons that raised the paper (app.core.explanations.helped).
    chance: float | None = None
    reasons: tuple[str, ...] = ()
    abstract: str = ""
    # The person (``people``) behind each author key, row for row (None: not split yet).
    author_people: tuple[int | None, ...] = ()
    # The Hugging Face organization it was submitted under: its slug and the name it shows.
    organization: str | None = None
    organization_name: str | None = None


@dataclass(frozen=True, slots=True)
class EditionView:
    """An edition's papers in trending order, with their unit vectors (zero rows if missing).

    A run selects from one edition for every subscriber, so what depends on the edition alone
    (the trending part of the score, which papers are in each category) is worked out once here.
    """

    papers: list[EditionPaper]
    vectors: Matrix
    # Where the thumbs-up match compares embeddings (digest.taste_space; None: as they are).
    space: TasteSpace | None = None
    # How many of the papers, from the first, are the edition itself; those after are the rest
    # of the day, best first, which gain nothing from trending (None: all are the edition).
    edition_size: int | None = None
    # What a saved search finds in the edition's days, best first (digest.run_inputs;
    # None: no search runs, and saved searches find nothing).
    matcher: Callable[[SavedQuery], list[str]] | None = None
    trending: np.ndarray = field(init=False, repr=False, compare=False)
    in_category: dict[str, np.ndarray] = field(init=False, repr=False, compare=False)
    _index: PoolIndex | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        count = len(self.papers)
        size = max(count if self.edition_size is None else self.edition_size, 1)
        trending = np.maximum(1.0 - np.arange(count) / size, 0.0)
        object.__setattr__(self, "trending", trending)
        members: dict[str, np.ndarray] = {}
        for index, paper in enumerate(self.papers):
            for category in paper.categories:
                members.setdefault(category, np.zeros(count, dtype=bool))[index] = True
        object.__setattr__(self, "in_category", members)

    def index(self) -> PoolIndex:
        """The edition's profile-match index, built by the first reader with thumbs up."""
        if self._index is None:
            texts = [paper_text(paper.title, paper.abstract) for paper in self.papers]
            object.__setattr__(self, "_index", PoolIndex(texts, self.vectors, self.space))
        assert self._index is not None
        return self._index

    @property
    def shown_size(self) -> int:
        """How many of the papers are the edition's own."""
        return len(self.papers) if self.edition_size is None else self.edition_size


@dataclass(frozen=True, slots=True)
class Liked:
    """A paper of the reader's profile, as a reason names it: "close to “title” that you liked"."""

    arxiv_id: str
    title: str
    how: str = "liked"  # or "saved": on the reading list with no thumbs up


@dataclass(frozen=True, slots=True)
class Taste:
    max_items: int
    categories: frozenset[str] = frozenset()
    interests: list[str] = field(default_factory=list)
    interest_vectors: Matrix | None = None
    exclusion_vectors: Matrix | None = None
    followed_topics: frozenset[int] = frozenset()
    muted_topics: frozenset[int] = frozenset()
    followed_authors: frozenset[str] = frozenset()
    muted_authors: frozenset[str] = frozenset()
    followed_people: frozenset[int] = frozenset()
    followed_organizations: frozenset[str] = frozenset()
    liked: Matrix | None = None
    # The title and abstract of each liked paper, row for row with ``liked``.
    liked_texts: tuple[str, ...] = ()
    # Each liked paper for the reasons, row for row with ``liked`` (none: not named).
    liked_papers: tuple[Liked, ...] = ()
    disliked: Matrix | None = None
    searches: tuple[SavedQuery, ...] = ()
    # Papers the reader said they are not interested in: in no section.
    hidden: frozenset[str] = frozenset()
    # What each published list the reader follows gained since their last digest.
    listed: tuple[ListSection, ...] = ()
    # The papers that got new comments since their last digest, if the reader asked for them.
    discussed: tuple[Discussed, ...] = ()


@dataclass(frozen=True, slots=True)
class ListSection:
    """A followed list's new papers, newest first (any day's: a list keeps older papers)."""

    title: str
    papers: tuple[EditionPaper, ...]


@dataclass(frozen=True, slots=True)
class Discussed:
    """A paper readers commented on since the reader's last digest, and how many times."""

    paper: EditionPaper
    comments: int


class Section(StrEnum):
    """The parts of a digest (digest.sections), in the order a digest shows them."""

    FOLLOWED = "followed"
    ORGANIZATIONS = "organizations"
    LISTED = "listed"
    DISCUSSED = "discussed"
    SEARCH = "search"
    FOR_YOU = "for-you"
    TRENDING = "trending"


@dataclass(frozen=True, slots=True)
class Pick:
    paper: EditionPaper
    reason: str
    section: Section = Section.FOR_YOU
    # Which of the section's kind it is in: a saved search's words (one section each).
    group: str = ""


def select(
    edition: EditionView,
    taste: Taste,
    *,
    max_per_topic: int,
    exclusion_cosine: float,
    skip: frozenset[int] = frozenset(),
) -> list[Pick]:
    """The subscriber's digest: at most ``taste.max_items`` picks, best first, none of the
    papers at the indices in ``skip`` (taken by another section)."""
    if not edition.papers:
        return []
    kept = eligible(edition, taste, exclusion_cosine)
    if skip:
        kept[list(skip)] = False
    parts = _score_parts(edition, taste)
    chosen = _chosen(edition, kept, parts.total, max_per_topic, taste)
    # The picks the liked papers brought in: the selection without them lacks these.
    raised: frozenset[int] = frozenset()
    if parts.liked.pairs is not None:
        raised = frozenset(chosen) - set(
            _chosen(edition, kept, parts.unliked, max_per_topic, taste)
        )
    why = _Why(taste, parts.interest, parts.liked, raised)
    return [Pick(edition.papers[i], why.reason(edition.papers[i], i)) for i in chosen]


def personal_scores(edition: EditionView, taste: Taste) -> np.ndarray:
    """Each paper's score for the reader, in the edition's order: the order :func:`select`
    takes its picks in, before eligibility, the topic cap and the sections cut it."""
    return _score_parts(edition, taste).total


@dataclass(frozen=True, slots=True)
class _ScoreParts:
    """A reader's score of each paper, with and without the thumbs-up match."""

    unliked: np.ndarray
    liked: _LikedMatch
    interest: _Similarity

    @property
    def total(self) -> np.ndarray:
        result: np.ndarray = self.unliked + LIKED_WEIGHT * self.liked.score
        return result


def _score_parts(edition: EditionView, taste: Taste) -> _ScoreParts:
    interest = _best_similarity(edition.vectors, taste.interest_vectors)
    unliked = edition.trending + INTEREST_WEIGHT * _standard(interest.max)
    # Thumbs down keep the raw embeddings: they push away a subject (what the model places
    # together), not one author's kind of paper.
    unliked -= FEEDBACK_WEIGHT * _standard(_mean_similarity(edition.vectors, taste.disliked))
    if taste.followed_topics or taste.followed_authors or taste.followed_people:
        unliked += FOLLOW_BONUS * np.array([follows(p, taste) for p in edition.papers])
    return _ScoreParts(unliked, _liked_match(edition, taste), interest)


def _chosen(
    edition: EditionView, kept: np.ndarray, score: np.ndarray, max_per_topic: int, taste: Taste
) -> list[int]:
    """The indices of the picks: the kept papers, best ``score`` first, topics capped."""
    candidates = np.flatnonzero(kept)
    # Best score first; a stable sort keeps trending order among equal scores.
    order = candidates[np.argsort(-score[candidates], kind="stable")].tolist()
    return _diverse(edition.papers, order, max_per_topic, taste.max_items)


@dataclass(frozen=True, slots=True)
class _Similarity:
    max: np.ndarray
    best: np.ndarray


@dataclass(frozen=True, slots=True)
class _LikedMatch:
    """Each edition paper's match to the liked papers, and every pair's closeness (papers by
    liked papers: embedding plus tf-idf cosine), to name the closest in a reason."""

    score: np.ndarray
    pairs: np.ndarray | None = None


def _best_similarity(vectors: Matrix, phrases: Matrix | None) -> _Similarity:
    if phrases is None or len(phrases) == 0:
        zeros = np.zeros(len(vectors), dtype=np.float32)
        return _Similarity(zeros, np.zeros(len(vectors), dtype=np.int64))
    sims = vectors @ phrases.T
    return _Similarity(sims.max(axis=1), sims.argmax(axis=1))


def _standard(values: np.ndarray) -> np.ndarray:
    """Standard scores of ``values``; zeros where they do not vary (no such signal)."""
    spread = float(values.std()) if len(values) else 0.0
    if spread < 1e-9:
        return np.zeros(len(values), dtype=np.float64)
    result: np.ndarray = (values - values.mean()) / spread
    return result


def _mean_similarity(vectors: Matrix, examples: Matrix | None) -> np.ndarray:
    if examples is None or len(examples) == 0:
        return np.zeros(len(vectors), dtype=np.float32)
    result: np.ndarray = (vectors @ examples.T).mean(axis=1)
    return result


def _liked_match(edition: EditionView, taste: Taste) -> _LikedMatch:
    if taste.liked is None or len(taste.liked) == 0:
        return _LikedMatch(np.zeros(len(edition.papers)))
    # Papers without text (none in a run; tests may give vectors only) are read as empty texts:
    # no tf-idf match, and in a taste space with words the lexical vector of no known word.
    texts = (
        list(taste.liked_texts)
        if len(taste.liked_texts) == len(taste.liked)
        else [""] * len(taste.liked)
    )
    index = edition.index()
    vectors = index.vector_similarities(taste.liked, texts)
    terms = index.term_similarities(texts)
    return _LikedMatch(fuse(vectors, terms), vectors + terms)


def eligible(
    edition: EditionView, taste: Taste, exclusion_cosine: float, *, by_category: bool = True
) -> np.ndarray:
    """Which papers the subscriber may get: in their categories (unless not ``by_category``),
    not muted, not excluded, not hidden."""
    kept = np.ones(len(edition.papers), dtype=bool)
    if taste.categories and by_category:
        kept = np.zeros(len(edition.papers), dtype=bool)
        for category in taste.categories & edition.in_category.keys():
            kept |= edition.in_category[category]
    if taste.exclusion_vectors is not None and len(taste.exclusion_vectors):
        kept &= ~((edition.vectors @ taste.exclusion_vectors.T).max(axis=1) >= exclusion_cosine)
    if taste.muted_topics or taste.muted_authors:
        kept &= np.array([not _muted(paper, taste) for paper in edition.papers], dtype=bool)
    if taste.hidden:
        kept &= np.array([paper.arxiv_id not in taste.hidden for paper in edition.papers])
    return kept


def _muted(paper: EditionPaper, taste: Taste) -> bool:
    if paper.topic_id is not None and paper.topic_id in taste.muted_topics:
        return True
    return bool(taste.muted_authors.intersection(paper.author_keys))


def follows(paper: EditionPaper, taste: Taste) -> bool:
    topic = paper.topic_id is not None and paper.topic_id in taste.followed_topics
    people = bool(taste.followed_people.intersection(paper.author_people))
    return topic or people or bool(taste.followed_authors.intersection(paper.author_keys))


def _diverse(
    papers: Sequence[EditionPaper], order: Sequence[int], max_per_topic: int, limit: int
) -> list[int]:
    taken: list[int] = []
    per_topic: dict[int, int] = {}
    for index in order:
        topic = papers[index].topic_id
        if topic is not None and per_topic.get(topic, 0) >= max_per_topic:
            continue
        if topic is not None:
            per_topic[topic] = per_topic.get(topic, 0) + 1
        taken.append(index)
        if len(taken) == limit:
            break
    return taken


@dataclass(frozen=True, slots=True)
class _Why:
    """The words of a pick's reason, from what the selection measured for this reader."""

    taste: Taste
    interest: _Similarity
    liked: _LikedMatch
    raised: frozenset[int]  # the picks the liked papers brought into the selection

    def reason(self, paper: EditionPaper, index: int) -> str:
        taste = self.taste
        if (followed := follow_reason(paper, taste)) is not None:
            return followed
        if taste.interests and self.interest.max[index] >= INTEREST_REASON_COSINE:
            return f"matches your interest “{taste.interests[int(self.interest.best[index])]}”"
        if index in self.raised:
            return self._close_to_liked(paper, index)
        return trending_reason(paper, index)

    def _close_to_liked(self, paper: EditionPaper, index: int) -> str:
        """Names the closest liked paper, when the taste carries their titles; a pick the
        reader liked or saved itself (a paper of this edition) says so."""
        named = self.taste.liked_papers
        if self.liked.pairs is None or len(named) != len(self.liked.pairs[index]):
            return "close to papers you liked"
        itself = [one for one in named if one.arxiv_id == paper.arxiv_id]
        if itself:
            return f"you {itself[0].how} it"
        closest = named[int(np.argmax(self.liked.pairs[index]))]
        return f"close to “{quoted(readable(closest.title))}” that you {closest.how}"
