"""View models: stored rows turned into what a page or the API shows (pure, no I/O).

Everything here takes plain values and returns plain values; templates escape every string.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date

from app.core.names import author_key

AUTHORS_SHOWN = 3
_CODE_URL = re.compile(r"https?://(?:www\.)?(?:github\.com|gitlab\.com)/[\w.\-]+/[\w.\-]+", re.I)


@dataclass(frozen=True, slots=True)
class AuthorLink:
    name: str
    key: str


@dataclass(frozen=True, slots=True)
class TopicChip:
    id: int
    label: str


@dataclass(frozen=True, slots=True)
class Signals:
    upvotes: int = 0  # on Hugging Face Daily Papers
    votes: int = 0  # on Paperboy
    num_comments: int = 0
    github_repo: str | None = None
    ai_keywords: tuple[str, ...] = ()


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


@dataclass(frozen=True, slots=True)
class Card:
    """One paper of a list: what the trending page and feeds show."""

    rank: int
    paper: PaperFacts
    authors: list[AuthorLink]
    more_authors: int
    topic: TopicChip | None
    score: float | None
    components: list[tuple[str, float]]
    signals: Signals
    code_url: str | None
    links: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Appearance:
    """A paper's place in an edition (the edition's newest version)."""

    period: str
    edition_date: date
    label: str  # the edition's key as its URL writes it: 2025-12-19, 2025-W51, 2025-12
    version: int
    rank: int
    score: float
    components: list[tuple[str, float]]


def links(arxiv_id: str) -> dict[str, str]:
    """arXiv's abstract and PDF pages (PDFs are linked, never re-hosted)."""
    return {
        "abstract": f"https://arxiv.org/abs/{arxiv_id}",
        "pdf": f"https://arxiv.org/pdf/{arxiv_id}",
    }


def code_url(paper: PaperFacts, signals: Signals) -> str | None:
    """The code repository: Hugging Face's, else the first GitHub/GitLab link in the text."""
    if signals.github_repo and signals.github_repo.startswith("https://"):
        return signals.github_repo
    match = _CODE_URL.search(f"{paper.comment or ''} {paper.abstract}")
    return match.group(0).rstrip(".") if match else None


def author_links(names: tuple[str, ...], limit: int | None = None) -> list[AuthorLink]:
    shown = names if limit is None else names[:limit]
    return [AuthorLink(name, author_key(name)) for name in shown if author_key(name)]


def parse_components(raw: str) -> list[tuple[str, float]]:
    """An edition item's components, largest contribution first."""
    values = json.loads(raw)
    return sorted(((str(k), float(v)) for k, v in values.items()), key=lambda kv: -kv[1])


def card(
    rank: int,
    paper: PaperFacts,
    topic: TopicChip | None,
    scored: tuple[float, str] | None,
    signals: Signals,
) -> Card:
    score, components = (None, []) if scored is None else (scored[0], parse_components(scored[1]))
    return Card(
        rank=rank,
        paper=paper,
        authors=author_links(paper.authors, AUTHORS_SHOWN),
        more_authors=max(0, len(paper.authors) - AUTHORS_SHOWN),
        topic=topic,
        score=score,
        components=components,
        signals=signals,
        code_url=code_url(paper, signals),
        links=links(paper.arxiv_id),
    )


def key_phrases(label: str) -> list[str]:
    """A topic label is its key phrases joined by commas."""
    return [part.strip() for part in label.split(",") if part.strip()]


def collaborators(
    pairs: list[tuple[str, str, int]], limit: int = 10
) -> list[tuple[AuthorLink, int]]:
    """Co-authors ranked by shared papers, then by name."""
    ranked = sorted(pairs, key=lambda row: (-row[2], row[1].casefold()))
    return [(AuthorLink(name, key), count) for key, name, count in ranked[:limit]]


def bars(sizes: list[tuple[date, int]], height: int = 60) -> list[tuple[date, int, int]]:
    """A topic's size per day scaled to bar heights for a small SVG chart."""
    peak = max((size for _, size in sizes), default=0) or 1
    return [(day, size, max(1, round(size * height / peak))) for day, size in sizes]
