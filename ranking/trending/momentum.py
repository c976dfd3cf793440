"""Topic signals of a day's papers from the papers before it (pure numpy).

Two questions about the neighbourhood of a paper's embedding among recent papers:

* **momentum**: is its topic growing? The log ratio of the share of last week's papers close
  to it (cosine at least ``THRESHOLD``) to that share over the four weeks before (0 = steady);
* **community interest**: did the community feature that topic lately? Among the
  ``NEIGHBOURS`` nearest papers of the last ``INTEREST_DAYS`` days, the share featured before
  the day, and the similarity to the closest (and five closest) featured ones.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

RECENT_DAYS = 7
BASELINE_DAYS = 28
THRESHOLD = 0.55
# Smoothing so that a topic unseen in the baseline does not get an infinite ratio.
SMOOTHING = 0.002
INTEREST_DAYS = 90
NEIGHBOURS = 30
CLOSEST_FEATURED = 5
TOPIC_FEATURES = (
    "topic_momentum",
    "topic_featured_share",
    "topic_featured_max_sim",
    "topic_featured_top5_sim",
)

Matrix = NDArray[np.float32]


def topic_momentum(
    pool: Matrix, recent: Matrix, baseline: Matrix, threshold: float = THRESHOLD
) -> NDArray[np.float64]:
    """One momentum per pool row; rows of every matrix are L2-normalised embeddings."""
    if len(recent) == 0 or len(baseline) == 0:
        return np.zeros(len(pool))
    recent_share = _share_close(pool, recent, threshold)
    baseline_share = _share_close(pool, baseline, threshold)
    return np.log((recent_share + SMOOTHING) / (baseline_share + SMOOTHING))


def _share_close(pool: Matrix, window: Matrix, threshold: float) -> NDArray[np.float64]:
    close = (pool @ window.T) >= threshold
    share: NDArray[np.float64] = close.mean(axis=1, dtype=np.float64)
    return share


def community_interest(
    pool: Matrix, window: Matrix, featured: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """Columns: featured share of the nearest neighbours, closest and top-5 featured similarity."""
    result = np.zeros((len(pool), 3))
    if len(window) <= NEIGHBOURS or featured.sum() < CLOSEST_FEATURED:
        return result
    similarity = pool @ window.T
    nearest = np.argpartition(-similarity, NEIGHBOURS, axis=1)[:, :NEIGHBOURS]
    result[:, 0] = featured[nearest].mean(axis=1)
    closest = np.sort(similarity[:, featured], axis=1)[:, -CLOSEST_FEATURED:]
    result[:, 1] = closest[:, -1]
    result[:, 2] = closest.mean(axis=1)
    return result


class TopicMemory:
    """The embeddings of earlier papers with their announcement and first featured days."""

    def __init__(
        self, embeddings: Matrix, announced: NDArray[np.int64], featured: NDArray[np.int64]
    ) -> None:
        order = np.argsort(announced, kind="stable")
        self._embeddings = embeddings[order]
        self._announced = announced[order]
        self._featured = featured[order]

    def features(self, pool: Matrix, day_ordinal: int) -> NDArray[np.float64]:
        """:data:`TOPIC_FEATURES` of each pool row, from papers announced before the day only."""
        recent = self._window(day_ordinal - RECENT_DAYS, day_ordinal)
        baseline = self._window(
            day_ordinal - RECENT_DAYS - BASELINE_DAYS, day_ordinal - RECENT_DAYS
        )
        lo, hi = self._bounds(day_ordinal - INTEREST_DAYS, day_ordinal)
        interest = community_interest(
            pool, self._embeddings[lo:hi], self._featured[lo:hi] < day_ordinal
        )
        momentum = topic_momentum(pool, recent, baseline)
        return np.column_stack([momentum, interest])

    def _window(self, start: int, end: int) -> Matrix:
        lo, hi = self._bounds(start, end)
        return self._embeddings[lo:hi]

    def _bounds(self, start: int, end: int) -> tuple[int, int]:
        bounds = np.searchsorted(self._announced, [start, end])
        return int(bounds[0]), int(bounds[1])
