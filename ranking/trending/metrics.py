"""How well a ranking of one day's pool agrees with what people upvoted (pure).

``scores`` orders the pool (higher first; ties keep pool order); ``upvotes`` is the upvote
count of each paper, ``None`` for papers never featured (not relevant).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

BOOTSTRAP_SAMPLES = 2000


def ranking_order(scores: Sequence[float]) -> NDArray[np.intp]:
    """Pool positions from best to worst; equal scores keep pool order."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


def recall_at(k: int, scores: Sequence[float], upvotes: Sequence[int | None]) -> float:
    """Share of the day's featured papers found in the top ``k``."""
    relevant = np.array([vote is not None for vote in upvotes])
    if not relevant.any():
        return 0.0
    return float(relevant[ranking_order(scores)[:k]].sum() / relevant.sum())


def ndcg_at(k: int, scores: Sequence[float], upvotes: Sequence[int | None]) -> float:
    """NDCG@k with gain log2(1 + upvotes); 0 when no featured paper has an upvote."""
    gains = np.array([np.log2(1 + vote) if vote is not None else 0.0 for vote in upvotes])
    discounts = 1.0 / np.log2(np.arange(2, k + 2))
    ranked = gains[ranking_order(scores)[:k]]
    ideal = np.sort(gains)[::-1][:k]
    best = float(ideal @ discounts[: len(ideal)])
    return float(ranked @ discounts[: len(ranked)]) / best if best > 0 else 0.0


def roc_auc(scores: Sequence[float], upvotes: Sequence[int | None]) -> float:
    """Chance that a featured paper outscores a non-featured one (ties count half)."""
    values = np.asarray(scores, dtype=np.float64)
    relevant = np.array([vote is not None for vote in upvotes])
    positives, negatives = values[relevant], values[~relevant]
    if len(positives) == 0 or len(negatives) == 0:
        return 0.5
    above = (positives[:, None] > negatives[None, :]).sum()
    ties = (positives[:, None] == negatives[None, :]).sum()
    return float((above + 0.5 * ties) / (len(positives) * len(negatives)))


def day_metrics(scores: Sequence[float], upvotes: Sequence[int | None]) -> dict[str, float]:
    return {
        "recall@10": recall_at(10, scores, upvotes),
        "recall@25": recall_at(25, scores, upvotes),
        "ndcg@10": ndcg_at(10, scores, upvotes),
        "auc": roc_auc(scores, upvotes),
    }


def summarise(
    per_day: Sequence[Mapping[str, float]], seed: int = 0
) -> dict[str, dict[str, object]]:
    """Mean of each metric over days with a 95% bootstrap interval (days resampled)."""
    if not per_day:
        return {}
    generator = np.random.default_rng(seed)
    picks = generator.integers(0, len(per_day), size=(BOOTSTRAP_SAMPLES, len(per_day)))
    summary: dict[str, dict[str, object]] = {}
    for metric in per_day[0]:
        values = np.array([day[metric] for day in per_day])
        means = values[picks].mean(axis=1)
        low, high = np.percentile(means, [2.5, 97.5])
        summary[metric] = {"mean": float(values.mean()), "ci95": [float(low), float(high)]}
    return summary
