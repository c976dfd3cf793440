"""Topic momentum: how fast the neighbourhood of a paper grows against its recent baseline (pure).

A paper's topic is the set of recent papers close to it (cosine similarity at least
``threshold``). Its momentum is the log ratio of the share of last week's papers in that topic
to the share of the four weeks before: 0 when steady, positive when the topic is growing.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

RECENT_DAYS = 7
BASELINE_DAYS = 28
THRESHOLD = 0.55
# Smoothing so that a topic unseen in the baseline does not get an infinite ratio.
SMOOTHING = 0.002


def topic_momentum(
    pool: NDArray[np.float32],
    recent: NDArray[np.float32],
    baseline: NDArray[np.float32],
    threshold: float = THRESHOLD,
) -> NDArray[np.float64]:
    """One momentum per pool row; rows of every matrix are L2-normalised embeddings."""
    if len(recent) == 0 or len(baseline) == 0:
        return np.zeros(len(pool))
    recent_share = _share_close(pool, recent, threshold)
    baseline_share = _share_close(pool, baseline, threshold)
    return np.log((recent_share + SMOOTHING) / (baseline_share + SMOOTHING))


def _share_close(
    pool: NDArray[np.float32], window: NDArray[np.float32], threshold: float
) -> NDArray[np.float64]:
    close = (pool @ window.T) >= threshold
    share: NDArray[np.float64] = close.mean(axis=1, dtype=np.float64)
    return share
