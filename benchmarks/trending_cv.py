"""Rolling time-series validation of the trending model inside its training period.

How the model's settings were chosen: each fold is one month of the training
period, ranked by a model fitted on the days before it only; the window ``eval-trending``
reports is never read. Prints mean NDCG@10 / ROC-AUC over each fold's days for every setting
asked for, and the calibration (ECE, Brier skill) of the last fold under an isotonic curve
fitted on the earlier folds' out-of-sample scores.

    .venv/bin/python -m benchmarks.trending_cv --data ../shared/data --until 2025-10-01 \\
        --folds 2025-06-01 2025-07-01 2025-08-01 2025-09-01 --C 0.001 0.003 --ranker-weight 0 1
"""

from __future__ import annotations

import argparse
import itertools
import time
from datetime import date
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ranking.trending.data import load_corpus, load_embeddings, load_labels
from ranking.trending.features import FEATURE_NAMES, columns
from ranking.trending.metrics import brier_skill, day_metrics, expected_calibration_error
from ranking.trending.replay import Replay
from ranking.trending.training import (
    TrainingSet,
    fit_blend,
    isotonic_curve,
    training_set,
    window_labels,
)

CORPUS = "corpus/arxiv_listings_2025-03-18_2026-07-01.jsonl.gz"
LABELS = "hf_daily/hf_daily_papers_2024-05-27_2025-12-31.jsonl.gz"
EMBEDDINGS = "corpus/embeddings_all-MiniLM-L6-v2.f16.npy"
MIN_POOL = 20
TEAM_FEATURES = columns([name for name in FEATURE_NAMES if name.startswith("team_")])


def fold_scores(
    data: TrainingSet, start: int, end: int, regularisation: float, ranker_weight: float
) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    train, test = data.days < start, (data.days >= start) & (data.days < end)
    blend = fit_blend(data, train, start, regularisation, ranker_weight)
    return test, blend.score(data.features[test])


def ranking_quality(
    data: TrainingSet, test: NDArray[np.bool_], scores: NDArray[np.float64], until: int
) -> dict[str, float]:
    days, featured = data.days[test], data.targets(until)[test]
    upvotes = data.upvotes[test]
    per_day = []
    for day in np.unique(days):
        on_day = days == day
        grades = [
            int(u) if f else None for u, f in zip(upvotes[on_day], featured[on_day], strict=True)
        ]
        if on_day.sum() >= MIN_POOL and any(g is not None for g in grades):
            per_day.append(day_metrics(list(scores[on_day]), grades))
    return {key: float(np.mean([d[key] for d in per_day])) for key in ("ndcg@10", "auc")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--until", type=date.fromisoformat, default=date(2025, 10, 1))
    parser.add_argument(
        "--folds",
        type=date.fromisoformat,
        nargs="+",
        default=[date(2025, m, 1) for m in (6, 7, 8, 9)],
    )
    parser.add_argument("--C", type=float, nargs="+", default=[0.001])
    parser.add_argument("--ranker-weight", type=float, nargs="+", default=[1.0])
    parser.add_argument("--without-team", action="store_true", help="also try without team_*")
    args = parser.parse_args()
    began = time.perf_counter()
    labels = window_labels(load_labels([args.data / LABELS]), args.until)
    corpus = [p for p in load_corpus(args.data / CORPUS) if p.announced_on < args.until]
    replay = Replay(corpus, load_embeddings(args.data / EMBEDDINGS), labels)
    data = training_set(replay, args.until)
    print(f"features of {len(data.days):,} papers in {time.perf_counter() - began:.0f} s")
    until = args.until.toordinal()
    bounds = [d.toordinal() for d in args.folds] + [until]
    variants = [("all features", data)]
    if args.without_team:
        features = data.features.copy()
        features[:, TEAM_FEATURES] = 0.0
        variants.append(
            (
                "without team_*",
                TrainingSet(
                    features=features,
                    days=data.days,
                    featured_on=data.featured_on,
                    upvotes=data.upvotes,
                ),
            )
        )
    for label, chosen in variants:
        for regularisation in args.C:
            for weight in args.ranker_weight:
                _report(label, chosen, bounds, until, regularisation, weight)


def _report(
    label: str,
    data: TrainingSet,
    bounds: list[int],
    until: int,
    regularisation: float,
    weight: float,
) -> None:
    began = time.perf_counter()
    folds = [fold_scores(data, a, b, regularisation, weight) for a, b in itertools.pairwise(bounds)]
    quality = [ranking_quality(data, test, scores, until) for test, scores in folds]
    ndcg = [q["ndcg@10"] for q in quality]
    auc = [q["auc"] for q in quality]
    *earlier, (last_test, last_scores) = folds
    # The curve the shipped model would carry, read the way it reads it.
    thresholds, curve = isotonic_curve(
        np.concatenate([s for _, s in earlier]),
        np.concatenate([data.targets(until)[t] for t, _ in earlier]),
    )
    chances = np.interp(last_scores, thresholds, curve)
    featured = data.targets(until)[last_test].astype(float)
    ece = expected_calibration_error(chances, featured)
    skill = brier_skill(chances, featured, data.days[last_test])
    print(
        f"{label:15s} C={regularisation:<6g} ranker_weight={weight:<4g} "
        f"NDCG@10 {np.mean(ndcg):.4f} AUC {np.mean(auc):.4f} | folds "
        f"{' '.join(f'{n:.3f}' for n in ndcg)} | last fold ECE {ece:.4f} Brier skill {skill:.3f} "
        f"({time.perf_counter() - began:.0f} s)",
        flush=True,
    )


if __name__ == "__main__":
    main()
