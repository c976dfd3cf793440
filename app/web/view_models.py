"""View models: stored rows turned into what a page or the API shows (pure, no I/O).

Everything here takes plain values and returns plain values; templates escape every string.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import ClassVar, NamedTuple

from app.core.excerpts import Excerpt, excerpt
from app.core.explanations import (
    AFTER_ANNOUNCEMENT,
    Explanation,
    chance_words,
    given_words,
    helped,
    load_reasons,
    part_words,
)
from app.core.names import author_key

AUTHORS_SHOWN = 3
HUGGING_FACE_PAPERS = "https://huggingface.co/papers"
_CODE_URL = re.compile(r"https?://(?:www\.)?(?:github\.com|gitlab\.com)/[\w.\-]+/[\w.\-]+", re.I)
_URL = r"https?://[^\s<>\"'(){}\[\]]+[^\s<>\"'(){}\[\].,;:!?]"
# "Project page: https://…", "project website at https://…", or a GitHub Pages site.
_PROJECT_PAGE = re.compile(
    rf"(?:project|home|demo|web)\s*(?:page|site|website)\b[^h]{{0,20}}({_URL})"
    rf"|(https?://[\w-]+\.github\.io(?:/[^\s<>\"'(){{}}\[\]]*[^\s<>\"'(){{}}\[\].,;:!?])?)",
    re.I,
)


@dataclass(frozen=True, slots=True)
class AuthorLink:
    name: str
    key: str


@dataclass(frozen=True, slots=True)
class TopicChip:
    id: int
    label: str


class Component(NamedTuple):
    """One part of a paper's score: what it measures and how much it added."""

    name: str
    value: float

    @property
    def words(self) -> str:
        return part_words(self.name)

    @property
    def at_announcement(self) -> bool:
        """Known when the paper was announced: the parts its chance is read from."""
        return self.name != AFTER_ANNOUNCEMENT


class Scored(NamedTuple):
    """An edition item's score, components (a JSON object), chance and reasons (a JSON list)
    as stored."""

    score: float
    components: str
    chance: float | None = None
    reasons: str | None = None


class Coauthor(NamedTuple):
    """Someone who wrote papers with an author, and how many of them."""

    key: str
    name: str
    shared_papers: int


class Collaborator(NamedTuple):
    author: AuthorLink
    shared_papers: int


class SizeBar(NamedTuple):
    """A topic's size on one day, and its bar's height in the topic page's chart."""

    day: date
    size: int
    height: int


@dataclass(frozen=True, slots=True)
class Signals:
    """Community signals: Hugging Face's (from its daily page) and Paperboy's own votes."""

    upvotes: int = 0  # on Hugging Face Daily Papers
    votes: int = 0  # on Paperboy
    num_comments: int = 0  # on Hugging Face
    site_comments: int = 0  # in this site's discussion
    github_repo: str | None = None
    ai_keywords: tuple[str, ...] = ()
    github_stars: int | None = None
    project_page: str | None = None
    submitted_by: str | None = None  # the HF username that put it on the daily page
    submitted_on_daily_at: datetime | None = None
    organization_name: str | None = None  # HF's slug ("ByteDance-Seed")
    organization_fullname: str | None = None
    published_at: datetime | None = None  # arXiv's v1 time, as Hugging Face knows it
    on_hugging_face: bool = False  # listed on a Hugging Face daily page, so it has a page there
    # Hugging Face's one-sentence summary (its model's, never shown as Paperboy's), the id of
    # its comment thread, and the digest naming Paperboy's copy of its thumbnail.
    ai_summary: str | None = None
    discussion_id: str | None = None
    thumbnail: str | None = None

    @property
    def thumbnail_path(self) -> str | None:
        """Where Paperboy serves its copy of the paper's Hugging Face thumbnail."""
        return None if self.thumbnail is None else f"/thumbnails/{self.thumbnail}.webp"

    @property
    def organization(self) -> str | None:
        """The organization's name as Hugging Face shows it, else its slug."""
        return self.organization_fullname or self.organization_name


@dataclass(frozen=True, slots=True)
class PaperFacts:
    """A stored paper as the web reads it."""

    arxiv_id: str
    title: str
    abstract: str
    authors: tuple[str, ...]
    categories: tuple[str, ...]
    primary_category: str | None
    comment: str | None
    announced_on: date | None
    version: int | None
    journal_ref: str | None = None
    doi: str | None = None
    submitted_at: datetime | None = None  # arXiv's v1 submission, from the API, OAI, a snapshot
    updated_at: datetime | None = None  # the latest version's submission, where a source says


class Explained:
    """What a reader is told of a paper's place in an edition: its chance in words and the
    reasons that helped (``app.core.explanations``), from the item's stored ``chance`` and
    ``reasons`` (every one the scorer gave, signed, biggest first: the API lists them all)."""

    __slots__ = ()
    chance: float | None
    reasons: list[Explanation]
    # How many reasons are listed (None: every one that helped).
    REASONS_SHOWN: ClassVar[int | None] = None

    @property
    def chance_words(self) -> str | None:
        return None if self.chance is None else chance_words(self.chance)

    @property
    def given_words(self) -> str | None:
        """The chance as said once the outcome is known ("Paperboy gave it 12% …")."""
        return None if self.chance is None else given_words(self.chance)

    @property
    def reasons_shown(self) -> list[Explanation]:
        return helped(self.reasons, self.REASONS_SHOWN)


@dataclass(frozen=True, slots=True)
class Card(Explained):
    """One paper of a list: what the trending page and feeds show.

    ``code_url`` and ``project_page`` are the API's ``githubRepo`` and ``projectPage``: both
    read them through :func:`code_url` and :func:`project_page`, so a card and the API agree.
    """

    rank: int
    paper: PaperFacts
    authors: list[AuthorLink]
    more_authors: int
    topic: TopicChip | None
    score: float | None
    components: list[Component]
    signals: Signals
    code_url: str | None
    links: dict[str, str] = field(default_factory=dict)
    chance: float | None = None
    reasons: list[Explanation] = field(default_factory=list)
    project_page: str | None = None
    # The abstract's opening; the rest waits behind "more".
    summary: Excerpt = field(default_factory=Excerpt)
    # The last announcement day whose outcome on Hugging Face is known (None: none is).
    outcomes_known_until: date | None = None
    REASONS_SHOWN: ClassVar[int | None] = 3  # a card is short; the paper page lists them all

    @property
    def passed_over(self) -> bool:
        """Hugging Face's window for the paper closed without featuring it."""
        announced, known = self.paper.announced_on, self.outcomes_known_until
        closed = announced is not None and known is not None and announced <= known
        return closed and not self.signals.on_hugging_face

    @property
    def outcome_known(self) -> bool:
        return self.signals.on_hugging_face or self.passed_over


@dataclass(frozen=True, slots=True)
class Appearance(Explained):
    """A paper's place in an edition (the edition's newest version)."""

    period: str
    edition_date: date
    label: str  # the edition's key as its URL writes it: 2025-12-19, 2025-W51, 2025-12
    version: int
    rank: int
    score: float
    components: list[Component]
    chance: float | None = None
    reasons: list[Explanation] = field(default_factory=list)

    @property
    def announced_score(self) -> float:
        """The parts known at announcement, added: the score the chance is read from."""
        return sum(part.value for part in self.components if part.at_announcement)

    def said(self, factor: str) -> str:
        """What the reasons said of a part, where they said anything."""
        return next((r.text for r in self.reasons if r.factor == factor), "")


def links(arxiv_id: str) -> dict[str, str]:
    """arXiv's abstract and PDF pages (PDFs are linked, never re-hosted), and the paper's page
    and discussion on Hugging Face (shown only for a paper listed there)."""
    return {
        "abstract": f"https://arxiv.org/abs/{arxiv_id}",
        "pdf": f"https://arxiv.org/pdf/{arxiv_id}",
        "hugging_face": f"{HUGGING_FACE_PAPERS}/{arxiv_id}",
        "discussion": f"{HUGGING_FACE_PAPERS}/{arxiv_id}#community",
    }


def code_url(paper: PaperFacts, signals: Signals) -> str | None:
    """The code repository: Hugging Face's, else the first GitHub/GitLab link in the text."""
    if signals.github_repo and signals.github_repo.startswith("https://"):
        return signals.github_repo
    match = _CODE_URL.search(_linked_text(paper))
    return match.group(0).rstrip(".") if match else None


def project_page(paper: PaperFacts, signals: Signals) -> str | None:
    """The project page: Hugging Face's, else one the comment or abstract names."""
    if signals.project_page and signals.project_page.startswith(("https://", "http://")):
        return signals.project_page
    match = _PROJECT_PAGE.search(_linked_text(paper))
    return (match.group(1) or match.group(2)) if match else None


def _linked_text(paper: PaperFacts) -> str:
    """The comment and abstract where they hold a link, else nothing: most hold none, and the
    two patterns above are costly to run over every paper of an answer to find that out."""
    text = f"{paper.comment or ''} {paper.abstract}"
    return text if "://" in text else ""


def author_links(names: tuple[str, ...], limit: int | None = None) -> list[AuthorLink]:
    shown = names if limit is None else names[:limit]
    return [AuthorLink(name, key) for name in shown if (key := author_key(name))]


def parse_components(raw: str) -> list[Component]:
    """An edition item's components, largest contribution first."""
    values = json.loads(raw)
    parts = (Component(str(name), float(value)) for name, value in values.items())
    return sorted(parts, key=lambda part: -part.value)


def card(
    rank: int,
    paper: PaperFacts,
    topic: TopicChip | None,
    scored: Scored | None,
    signals: Signals,
    outcomes_known_until: date | None = None,
) -> Card:
    return Card(
        rank=rank,
        paper=paper,
        authors=author_links(paper.authors, AUTHORS_SHOWN),
        more_authors=max(0, len(paper.authors) - AUTHORS_SHOWN),
        topic=topic,
        score=None if scored is None else scored.score,
        components=[] if scored is None else parse_components(scored.components),
        signals=signals,
        code_url=code_url(paper, signals),
        links=links(paper.arxiv_id),
        chance=None if scored is None else scored.chance,
        reasons=[] if scored is None else load_reasons(scored.reasons),
        project_page=project_page(paper, signals),
        summary=excerpt(paper.abstract),
        outcomes_known_until=outcomes_known_until,
    )


def key_phrases(label: str) -> list[str]:
    """A topic label is its key phrases joined by commas."""
    return [part.strip() for part in label.split(",") if part.strip()]


def collaborators(coauthors: list[Coauthor], limit: int = 10) -> list[Collaborator]:
    """Co-authors ranked by shared papers, then by name."""
    ranked = sorted(coauthors, key=lambda one: (-one.shared_papers, one.name.casefold()))
    return [
        Collaborator(AuthorLink(one.name, one.key), one.shared_papers) for one in ranked[:limit]
    ]


def bars(sizes: dict[date, int], height: int = 60) -> list[SizeBar]:
    """A topic's size per day (in day order) scaled to bar heights for a small SVG chart."""
    peak = max(sizes.values(), default=0) or 1
    return [SizeBar(day, size, max(1, round(size * height / peak))) for day, size in sizes.items()]
