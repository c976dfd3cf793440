"""Replay announcement days from files: each day's pool with what was known that morning.

Training and evaluation both rank a day through :meth:`Replay.context`, which gives the
scorer the same memory of earlier days a live day gets (author history, topic memory), so what
is evaluated is what is served.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
from numpy.typing import NDArray

from ranking.scoring import Candidate, ScoringContext
from ranking.trending.data import LabelRecord, TrendingDataError
from ranking.trending.features import EMBEDDING_SIZE, TopicMemory
from ranking.trending.history import AuthorHistory


@dataclass(frozen=True)
class Day:
    """One announcement day: its pool and their embeddings (row *i* is paper *i*)."""

    day: date
    papers: list[Candidate]
    embeddings: NDArray[np.float32]


class Replay:
    """The corpus ordered by announcement day, with embeddings, author history, topic memory."""

    def __init__(
        self,
        corpus: Sequence[Candidate],
        embeddings: Mapping[str, NDArray[np.float32]],
        labels: Sequence[LabelRecord],
    ) -> None:
        self.papers = sorted(corpus, key=lambda paper: paper.announced_on)
        self.matrix = _aligned(self.papers, embeddings)
        self.history = AuthorHistory(labels, self.papers)
        self._ordinals = np.array([paper.announced_on.toordinal() for paper in self.papers])
        featured = [self.history.first_featured(paper.arxiv_id) for paper in self.papers]
        self.topics = TopicMemory(self.matrix, self._ordinals, np.array(featured, dtype=np.int64))

    def days(self, start: date | None = None, end: date | None = None) -> list[date]:
        """Announcement days with at least one paper, ``start`` ≤ day ≤ ``end``."""
        found = sorted({paper.announced_on for paper in self.papers})
        return [day for day in found if (start or day) <= day <= (end or day)]

    def day(self, day: date) -> Day:
        bounds = np.searchsorted(self._ordinals, [day.toordinal(), day.toordinal() + 1])
        lo, hi = int(bounds[0]), int(bounds[1])
        return Day(day, self.papers[lo:hi], self.matrix[lo:hi])

    def context(self, day: Day) -> ScoringContext:
        """What the scorer is given for ``day``: no signals yet, the history and topic memory."""
        return ScoringContext(
            day=day.day,
            embeddings=day.embeddings,
            author_history=self.history,
            topic_memory=self.topics,
        )


def _aligned(
    papers: Sequence[Candidate], embeddings: Mapping[str, NDArray[np.float32]]
) -> NDArray[np.float32]:
    missing = [paper.arxiv_id for paper in papers if paper.arxiv_id not in embeddings]
    if missing:
        raise TrendingDataError(
            f"{len(missing)} corpus papers have no embedding (first: {', '.join(missing[:3])})"
        )
    if not papers:
        return np.zeros((0, EMBEDDING_SIZE), dtype=np.float32)
    return np.stack([embeddings[paper.arxiv_id] for paper in papers]).astype(np.float32)
