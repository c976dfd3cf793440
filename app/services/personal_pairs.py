"""The (author, day) pairs of ``paperboy eval-personal``: a profile, a pool, what is relevant.

For each announcement day D of the window and each author with papers that day and at least
``MIN_PROFILE`` papers announced before D: the profile is those earlier papers, the pool is
every paper announced on D, and the relevant papers are the author's own papers of D. An author
is told apart by :func:`app.core.names.author_key`; a method only ever sees titles, abstracts
and embeddings, never author names.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np

from app.core.names import cached_author_key
from app.core.vectors import Matrix
from digest.profile_match import paper_text
from ranking.scoring import Candidate

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
