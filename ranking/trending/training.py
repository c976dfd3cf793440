"""Fit the trending prior on a training window and return the artifact (deterministic).

The window is every corpus paper announced before ``until`` with labels dated before
``until``; each paper's features are computed as of its own announcement day, exactly as
they will be when the model ranks a day.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import date

import numpy as np
from numpy.typing import NDArray
from sklearn.linear_model import LogisticRegression

from ranking.trending.data import LabelRecord
from ranking.trending.features import FEATURE_NAMES
from ranking.trending.metrics import roc_auc
from ranking.trending.model import TrendingModel
from ranking.trending.replay import Replay
from ranking.trending.scorer import pool_features

REGULARISATION = 0.003  # inverse strength C; see docs/benchmarks.md for how it was chosen


class TrainingDataError(ValueError):
    """Nothing to learn from: no paper or no featured paper in the window."""


def window_labels(labels: Sequence[LabelRecord], until: date) -> list[LabelRecord]:
    return [record for record in labels if record.featured_on < until]


def training_set(replay: Replay, until: date) -> tuple[NDArray[np.float64], NDArray[np.int8]]:
    """Features (as of each paper's day) and whether the paper was featured, before ``until``."""
    featured = replay.history.featured_ids()
    blocks: list[NDArray[np.float64]] = []
    targets: list[int] = []
    for day in replay.days(end=until.fromordinal(until.toordinal() - 1)):
        inputs = replay.day(day)
        blocks.append(pool_features(inputs.papers, replay.context(inputs)))
        targets.extend(int(paper.arxiv_id in featured) for paper in inputs.papers)
    if not blocks or not any(targets) or all(targets):
        raise TrainingDataError(f"the window before {until} needs featured and other papers")
    return np.vstack(blocks), np.asarray(targets, dtype=np.int8)


def train(replay: Replay, until: date) -> TrendingModel:
    """``replay`` must hold only labels dated before ``until`` (see :func:`window_labels`)."""
    features, targets = training_set(replay, until)
    mean = features.mean(axis=0)
    scale = features.std(axis=0)
    scale[scale == 0] = 1.0
    standardised = (features - mean) / scale
    fitted = LogisticRegression(C=REGULARISATION, max_iter=2000).fit(standardised, targets)
    weights, intercept = fitted.coef_[0], float(fitted.intercept_[0])
    return TrendingModel(
        model_id=_model_id(until, weights, intercept),
        trained_from=replay.days()[0].isoformat(),
        trained_until=until.isoformat(),
        features=list(FEATURE_NAMES),
        mean=_rounded(mean),
        scale=_rounded(scale),
        weights=_rounded(weights),
        intercept=round(intercept, 6),
        metrics={
            "papers": float(len(targets)),
            "featured": float(targets.sum()),
            "train_auc": round(roc_auc(standardised @ weights, _as_upvotes(targets)), 4),
        },
        hyperparameters={"estimator": "logistic_regression", "C": REGULARISATION},
    )


def _as_upvotes(targets: NDArray[np.int8]) -> list[int | None]:
    return [1 if target else None for target in targets]


def _rounded(values: NDArray[np.float64]) -> list[float]:
    return [float(f"{value:.6g}") for value in values]


def _model_id(until: date, weights: NDArray[np.float64], intercept: float) -> str:
    digest = hashlib.sha256(json.dumps([_rounded(weights), round(intercept, 6)]).encode())
    return f"trending-lr-{until.isoformat()}-{digest.hexdigest()[:8]}"
