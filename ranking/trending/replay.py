"""Replay announcement days from files: each day's pool with what was known that morning.

Training and evaluation both go through :meth:`Replay.day`, and the live scorer computes its
features with the same functions, so what is evaluated is what is served.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta

import numpy as np
from numpy.typing import NDArray

from ranking.scoring import Candidate
from ranking.trending.data import LabelRecord, TrendingDataError
from ranking.trending.features import EMBEDDING_SIZE
from ranking.trending.history import AuthorHistory
from ranking.trending.momentum import BASELINE_DAYS, RECENT_DAYS, topic_momentum


@dataclass(frozen=True)
class Day:
    """One announcement day: its pool (momentum filled in) and their embeddings."""

    day: date
    papers: list[Candidate]
    embeddings: NDArray[np.float32]


class Replay:
    """The corpus ordered by announcement day, with embeddings and author history."""

    def __init__(
        self,
        corpus: Sequence[Candidate],
        embeddings: Mapping[str, NDArray[np.float32]],
        labels: Sequence[LabelRecord],
    ) -> None:
        self.papers = sorted(corpus, key=lambda paper: paper.announced_on)
        self.matrix = _aligned(self.papers, embeddings)
        self.history = AuthorHistory(labels, self.papers)
        ordinals = np.array([paper.announced_on.toordinal() for paper in self.papers])
        self._ordinals = ordinals

    def days(self, start: date | None = None, end: date | None = None) -> list[date]:
        """Announcement days with at least one paper, ``start`` ≤ day ≤ ``end``."""
        found = sorted({paper.announced_on for paper in self.papers})
        return [day for day in found if (start or day) <= day <= (end or day)]

    def day(self, day: date) -> Day:
        lo, hi = self._rows(day, day + timedelta(days=1))
        pool = self.matrix[lo:hi]
        momentum = topic_momentum(
            pool,
            self.matrix[slice(*self._rows(day - timedelta(days=RECENT_DAYS), day))],
            self.matrix[slice(*self._rows(day - timedelta(days=RECENT_DAYS + BASELINE_DAYS),
                                          day - timedelta(days=RECENT_DAYS)))],
        )  # fmt: skip
        papers = [
            replace(paper, topic_momentum=float(value))
            for paper, value in zip(self.papers[lo:hi], momentum, strict=True)
        ]
        return Day(day, papers, pool)

    def _rows(self, start: date, end: date) -> tuple[int, int]:
        """Row range of papers announced in [start, end)."""
        bounds = np.searchsorted(self._ordinals, [start.toordinal(), end.toordinal()])
        return int(bounds[0]), int(bounds[1])


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
