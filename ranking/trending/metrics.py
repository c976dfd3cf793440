"""How well a ranking of one day's pool agrees with what people upvoted, and how far the model's
chances can be taken at their word (pure).

Ranking metrics: ``scores`` orders the pool (higher first; ties keep pool order); ``upvotes`` is
the upvote count of each paper, ``None`` for papers never featured (not relevant).

Calibration metrics: ``chances`` are the model's probabilities that each paper is featured,
``featured`` what happened (1/0), ``days`` each paper's announcement day. A forecaster that
always says the base rate scores a Brier skill of 0; the skill is measured against the day's own
base rate, a reference that already knows how many papers each day will have featured.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

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


BINS = 10
# A day is scored only with a pool of at least this many papers (and one of them featured).
MIN_POOL = 20


def _equal_count_bins(chances: NDArray[np.float64], bins: int) -> list[NDArray[np.intp]]:
    return list(np.array_split(np.argsort(chances, kind="stable"), bins))


def expected_calibration_error(
    chances: NDArray[np.float64], featured: NDArray[np.float64], bins: int = BINS
) -> float:
    """Mean |chance - featured share| over ``bins`` equal-count bins, weighted by size."""
    if len(chances) == 0:
        return 0.0
    parts = _equal_count_bins(chances, bins)
    gaps = [len(p) * abs(chances[p].mean() - featured[p].mean()) for p in parts if len(p)]
    return float(sum(gaps) / len(chances))


def brier_skill(
    chances: NDArray[np.float64], featured: NDArray[np.float64], days: NDArray[np.int64]
) -> float:
    """1 - Brier(chances) / Brier(each day's base rate)."""
    reference = np.empty_like(chances)
    for day in np.unique(days):
        on_day = days == day
        reference[on_day] = featured[on_day].mean()
    baseline = float(np.mean((reference - featured) ** 2))
    if baseline == 0:
        return 0.0
    return 1.0 - float(np.mean((chances - featured) ** 2)) / baseline


def reliability(
    chances: NDArray[np.float64], featured: NDArray[np.float64], bins: int = BINS
) -> list[dict[str, float]]:
    """Per equal-count bin: its chance range, the mean chance, the share featured, papers."""
    rows = []
    for part in _equal_count_bins(chances, bins):
        if len(part):
            rows.append(
                {
                    "low": round(float(chances[part].min()), 4),
                    "high": round(float(chances[part].max()), 4),
                    "mean_chance": round(float(chances[part].mean()), 4),
                    "featured_share": round(float(featured[part].mean()), 4),
                    "papers": float(len(part)),
                }
            )
    return rows


def calibration_summary(
    per_day: Sequence[tuple[NDArray[np.float64], NDArray[np.float64]]], seed: int = 0
) -> dict[str, Any]:
    """``ece`` and ``brier_skill`` over all days with 95% bootstrap intervals (days
    resampled), and the reliability table."""
    chances, featured, days = _stacked(per_day, range(len(per_day)))
    generator = np.random.default_rng(seed)
    picks = generator.integers(0, len(per_day), size=(BOOTSTRAP_SAMPLES, len(per_day)))
    resampled = [_stacked(per_day, pick) for pick in picks]
    return {
        "ece": _with_interval(
            expected_calibration_error(chances, featured),
            [expected_calibration_error(c, f) for c, f, _ in resampled],
        ),
        "brier_skill": _with_interval(
            brier_skill(chances, featured, days), [brier_skill(*sample) for sample in resampled]
        ),
        "reliability": reliability(chances, featured),
    }


def _stacked(
    per_day: Sequence[tuple[NDArray[np.float64], NDArray[np.float64]]], picks: Any
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    chosen = [per_day[int(index)] for index in picks]
    days = np.concatenate([np.full(len(c), n, dtype=np.int64) for n, (c, _) in enumerate(chosen)])
    return np.concatenate([c for c, _ in chosen]), np.concatenate([f for _, f in chosen]), days


def _with_interval(value: float, samples: list[float]) -> dict[str, Any]:
    low, high = np.percentile(samples, [2.5, 97.5])
    return {"mean": value, "ci95": [float(low), float(high)]}
