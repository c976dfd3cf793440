"""What ``paperboy eval-personal`` and ``paperboy train-taste-space`` work on, from files only:
the (author, day) pairs, the days as a digest run sees them, and the taste space asked for,
checked against the embeddings' model.

A pair is a profile, a pool and what is relevant. For each announcement day D of the window
and each author with papers that day and at least ``MIN_PROFILE`` papers announced before D:
the profile is those earlier papers, the pool is every paper announced on D, and the relevant
papers are the author's own papers of D. An author is told apart by
:func:`app.core.names.author_key`; a method only ever sees titles, abstracts and embeddings,
never author names.

eval-personal sees the days as a digest run sees them, so that its ``digest`` method ranks
each pair's pool with the very score the digest and "For you" pick by.

A day becomes an :class:`digest.selection.EditionView` the way ``paperboy rank`` and
``digest/run_inputs.py`` make one: the trending model scores the day's papers with what was
known that morning (:class:`ranking.trending.replay.Replay`), the diversity rule orders the
first ``edition_size`` into the edition, and the rest of the day follows, best scored first.
The day's topics are the day clustered alone (``rank`` clusters it with the days before, which
a file replay has no store for); they only decide which papers the topic cap lets into the
edition. Author names are left out of the view, as every method is kept from them.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from app.core.config import Settings
from app.core.names import cached_author_key
from app.core.vectors import Matrix
from app.services.trending import load_labels
from digest.profile_match import paper_text
from digest.selection import EditionPaper, EditionView
from digest.taste_space import TasteSpace as TasteSpace
from digest.taste_space import TasteSpaceError as TasteSpaceError
from digest.taste_space import load_space, space_for
from digest.taste_space import save_space as save_space
from ranking.day_topics import topic_params
from ranking.diversity import DiversityRule
from ranking.editions import Item, diversity_rule, edition_of, rank_all
from ranking.scoring import Candidate
from ranking.topics import TopicParams, cluster
from ranking.trending.model import TrendingModel
from ranking.trending.replay import Replay
from ranking.trending.scorer import TrendingScorer

MIN_PROFILE = 3


@dataclass(frozen=True, slots=True)
class Corpus:
    """Papers with an embedding, by announcement day then id; row *i* of ``vectors`` and
    ``texts`` (title and abstract) is paper *i*."""

    papers: list[Candidate]
    vectors: Matrix
    texts: list[str] = field(init=False, repr=False)
    days: dict[date, list[int]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "texts", [paper_text(p.title, p.abstract) for p in self.papers])
        days: dict[date, list[int]] = defaultdict(list)
        for row, paper in enumerate(self.papers):
            days[paper.announced_on].append(row)
        object.__setattr__(self, "days", dict(days))

    def rows_before(self, day: date, listing_days: int) -> list[int]:
        """The papers of the ``listing_days`` announcement days before ``day``."""
        earlier = sorted(d for d in self.days if d < day)[-listing_days:] if listing_days else []
        return [row for d in earlier for row in self.days[d]]


def corpus_of(papers: Sequence[Candidate], vectors: Mapping[str, Matrix]) -> Corpus:
    kept = sorted(
        (p for p in papers if p.arxiv_id in vectors), key=lambda p: (p.announced_on, p.arxiv_id)
    )
    matrix = np.vstack([vectors[p.arxiv_id] for p in kept]) if kept else np.zeros((0, 1))
    return Corpus(kept, matrix.astype(np.float32))


@dataclass(frozen=True, slots=True)
class Pair:
    author: str
    day: date
    profile: list[int]
    pool: list[int]
    relevant: frozenset[int]


def pairs(corpus: Corpus, start: date, end: date) -> list[Pair]:
    """Every (author, day) pair of the window, by day then author."""
    history: dict[str, list[int]] = defaultdict(list)
    found: list[Pair] = []
    for day in sorted(corpus.days):
        if day > end:
            break
        pool = corpus.days[day]
        authors = _authors(corpus, pool)
        if day >= start:
            found += [
                Pair(
                    author=author,
                    day=day,
                    profile=list(history[author]),
                    pool=pool,
                    relevant=frozenset(rows),
                )
                for author, rows in sorted(authors.items())
                if len(history[author]) >= MIN_PROFILE
            ]
        for author, rows in authors.items():
            history[author] += rows
    return found


def sample(found: Sequence[Pair], size: int | None, seed: int) -> list[Pair]:
    """At most ``size`` pairs drawn at random (all of them for ``None``), in day order."""
    if size is None or size >= len(found):
        return list(found)
    chosen = sorted(random.Random(seed).sample(range(len(found)), size))
    return [found[index] for index in chosen]


def _authors(corpus: Corpus, pool: Sequence[int]) -> dict[str, list[int]]:
    authors: dict[str, list[int]] = defaultdict(list)
    for row in pool:
        for key in {cached_author_key(name) for name in corpus.papers[row].authors}:
            if key:
                authors[key].append(row)
    return authors


@dataclass(frozen=True, slots=True)
class DayView:
    """A day's view and, row for row, the corpus row of each of its papers."""

    view: EditionView
    rows: list[int]

    def in_pool_order(self, scores: np.ndarray, pool: list[int]) -> np.ndarray:
        """``scores`` (one per view paper) for the papers of ``pool`` (corpus rows), in order."""
        position = {row: index for index, row in enumerate(self.rows)}
        return np.asarray([scores[position[row]] for row in pool], dtype=np.float64)


@dataclass(slots=True)
class DayViews:
    """Each day's view, built once: every pair of a day ranks the same view."""

    corpus: Corpus
    replay: Replay
    scorer: TrendingScorer
    topics: TopicParams
    rule: DiversityRule
    edition_size: int
    space: TasteSpace | None = None
    _last: tuple[date, DayView] | None = field(default=None, repr=False)

    def of(self, day: date) -> DayView:
        if self._last is None or self._last[0] != day:
            self._last = (day, self._build(day))
        return self._last[1]

    def _build(self, day: date) -> DayView:
        replayed = self.replay.day(day)
        rows = self.corpus.days[day]
        ids = [self.corpus.papers[row].arxiv_id for row in rows]
        if [paper.arxiv_id for paper in replayed.papers] != ids:
            raise ValueError(f"the replay and the corpus disagree on the papers of {day}")
        scores = self.scorer.score(replayed.papers, self.replay.context(replayed))
        labels = cluster(replayed.embeddings, self.topics)
        papers = [
            replace(paper, topic_id=int(label) if label >= 0 else None)
            for paper, label in zip(replayed.papers, labels, strict=True)
        ]
        ranking = rank_all(papers, scores)
        edition = edition_of(ranking, self.rule, self.edition_size)
        shown = {item.arxiv_id for item in edition}
        ordered = edition + [item for item in ranking if item.arxiv_id not in shown]
        row_of = dict(zip(ids, rows, strict=True))
        by_id = {paper.arxiv_id: paper for paper in papers}
        view = EditionView(
            [_edition_paper(by_id[item.arxiv_id], item) for item in ordered],
            self.corpus.vectors[[row_of[item.arxiv_id] for item in ordered]],
            self.space,
            edition_size=len(edition),
        )
        return DayView(view, [row_of[item.arxiv_id] for item in ordered])


def _edition_paper(paper: Candidate, item: Item) -> EditionPaper:
    return EditionPaper(
        arxiv_id=paper.arxiv_id,
        title=paper.title,
        authors=[],
        author_keys=[],
        categories=list(paper.categories),
        score=item.score,
        components=item.components,
        topic_id=item.topic_id,
        topic_label=None,
        chance=item.chance,
        abstract=paper.abstract,
    )


def taste_space(model: str, path: Path | None) -> TasteSpace | None:
    """The shipped space for ``model`` (None for another model), or the file asked for, which
    must have been learned on ``model``'s vectors."""
    if path is None:
        return space_for(model)
    space = load_space(path)
    if space.model != model:
        raise TasteSpaceError(
            f"{path} maps vectors of {space.model}, and these embeddings are {model}'s"
        )
    return space


def described(space: TasteSpace) -> dict[str, Any]:
    """The space's identity, as a results file records it."""
    return {
        "model": space.model,
        "trained_from": space.trained_from,
        "trained_until": space.trained_until,
        "lexical_dimensions": 0 if space.lexicon is None else space.lexicon.dimensions,
    }


def day_views(
    settings: Settings,
    corpus: Corpus,
    space: TasteSpace | None,
    model: TrendingModel,
    label_files: Sequence[Path],
) -> DayViews:
    """The corpus's days as a digest run sees them, the trending model replaying them."""
    vectors = {
        paper.arxiv_id: row for paper, row in zip(corpus.papers, corpus.vectors, strict=True)
    }
    return DayViews(
        corpus=corpus,
        replay=Replay(corpus.papers, vectors, load_labels(label_files)),
        scorer=TrendingScorer(model),
        topics=topic_params(settings),
        rule=diversity_rule(settings),
        edition_size=settings.edition_size,
        space=space,
    )
