"""Fit the trending model on a training window and return the artifact (deterministic).

The window is every corpus paper announced before ``until`` with labels dated before
``until``; each paper's features are computed as of its own announcement day, exactly as
they will be when the model ranks a day. The settings below were chosen by rolling
validation inside the training period (``benchmarks/trending_cv.py``), never on the window
``eval-trending`` reports; docs/ranking.md says how.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import lightgbm as lgb
import numpy as np
from numpy.typing import NDArray
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

from ranking.trending.data import LabelRecord
from ranking.trending.features import FEATURE_NAMES
from ranking.trending.metrics import roc_auc
from ranking.trending.model import RANKER_COLUMNS, TrendingModel
from ranking.trending.replay import Replay
from ranking.trending.scorer import pool_features

REGULARISATION = 0.001  # inverse strength C of the logistic regression
RANKER_WEIGHT = 0.5  # the ranker's share of the blend, against the regression's 1
RANKER_PARAMS: dict[str, float | int | str | bool] = {
    "objective": "lambdarank",
    "n_estimators": 300,
    "learning_rate": 0.03,
    "num_leaves": 15,
    "min_child_samples": 40,
    "subsample": 0.8,
    "subsample_freq": 1,
    "colsample_bytree": 0.5,
    "reg_lambda": 5.0,
    "random_state": 0,
    "deterministic": True,
    "force_col_wise": True,
    "n_jobs": 1,
    "verbose": -1,
}
# Upvotes → relevance grade for the ranker: 0 not featured, 1..5 by log2(1 + upvotes).
GRADE_STEP = 1.5
MAX_GRADE = 5
# The isotonic calibration is fitted on out-of-sample scores of the last CALIBRATION_MONTHS
# months before the cut-off, each month scored by a model trained on the days before it.
CALIBRATION_MONTHS = 3


class TrainingDataError(ValueError):
    """Nothing to learn from: no paper or no featured paper in the window."""


@dataclass(frozen=True)
class TrainingSet:
    """Every training paper's features, as of its day, with its day and label."""

    features: NDArray[np.float64]
    days: NDArray[np.int64]  # announcement ordinals, ascending
    featured_on: NDArray[np.int64]  # ordinal of its first featured day, 0 if never
    upvotes: NDArray[np.int64]

    def targets(self, before: int) -> NDArray[np.int8]:
        """Featured, as known to labels dated before ordinal ``before``."""
        return ((self.featured_on > 0) & (self.featured_on < before)).astype(np.int8)

    def grades(self, before: int) -> NDArray[np.int32]:
        graded = 1 + np.minimum(MAX_GRADE - 1, np.floor(np.log2(1 + self.upvotes) / GRADE_STEP))
        return np.where(self.targets(before) > 0, graded, 0).astype(np.int32)


def window_labels(labels: Sequence[LabelRecord], until: date) -> list[LabelRecord]:
    return [record for record in labels if record.featured_on < until]


def training_set(replay: Replay, until: date) -> TrainingSet:
    """Features (as of each paper's day) and labels of the papers announced before ``until``."""
    history = replay.history
    blocks: list[NDArray[np.float64]] = []
    days: list[int] = []
    featured: list[int] = []
    upvotes: list[int] = []
    best = {record.arxiv_id: record.upvotes for record in history.label_records()}
    for day in replay.days(end=until.fromordinal(until.toordinal() - 1)):
        inputs = replay.day(day)
        blocks.append(pool_features(inputs.papers, replay.context(inputs)))
        for paper in inputs.papers:
            first = history.first_featured(paper.arxiv_id)
            days.append(day.toordinal())
            featured.append(first if first < until.toordinal() else 0)
            upvotes.append(best.get(paper.arxiv_id, 0))
    found = TrainingSet(
        features=np.vstack(blocks) if blocks else np.zeros((0, len(FEATURE_NAMES))),
        days=np.asarray(days, dtype=np.int64),
        featured_on=np.asarray(featured, dtype=np.int64),
        upvotes=np.asarray(upvotes, dtype=np.int64),
    )
    targets = found.targets(until.toordinal())
    if not len(targets) or not targets.any() or targets.all():
        raise TrainingDataError(f"the window before {until} needs featured and other papers")
    return found


@dataclass(frozen=True)
class Blend:
    """The two fitted learners and the spreads that put their scores on one scale."""

    mean: NDArray[np.float64]
    scale: NDArray[np.float64]
    weights: NDArray[np.float64]
    intercept: float
    ranker: lgb.Booster
    lr_spread: float
    ranker_spread: float

    ranker_weight: float = RANKER_WEIGHT

    def score(self, features: NDArray[np.float64]) -> NDArray[np.float64]:
        logit = ((features - self.mean) / self.scale) @ self.weights + self.intercept
        ranked = np.asarray(self.ranker.predict(features[:, RANKER_COLUMNS], raw_score=True))
        return logit / self.lr_spread + self.ranker_weight * ranked / self.ranker_spread


def fit_blend(
    data: TrainingSet,
    rows: NDArray[np.bool_],
    before: int,
    regularisation: float = REGULARISATION,
    ranker_weight: float = RANKER_WEIGHT,
) -> Blend:
    """Both learners fitted on ``rows`` with labels known before ordinal ``before``; the
    keyword settings are for the rolling validation that chose the defaults."""
    features = data.features[rows]
    mean, scale = features.mean(axis=0), features.std(axis=0)
    scale[scale == 0] = 1.0
    standardised = (features - mean) / scale
    targets = data.targets(before)[rows]
    regression = LogisticRegression(C=regularisation, max_iter=2000).fit(standardised, targets)
    weights, intercept = regression.coef_[0], float(regression.intercept_[0])
    _, per_day = np.unique(data.days[rows], return_counts=True)
    ranker = lgb.LGBMRanker(**RANKER_PARAMS)  # type: ignore[arg-type]
    ranker.fit(features[:, RANKER_COLUMNS], data.grades(before)[rows], group=per_day)
    booster = ranker.booster_
    logit = standardised @ weights + intercept
    ranked = np.asarray(booster.predict(features[:, RANKER_COLUMNS], raw_score=True))
    return Blend(
        mean=mean,
        scale=scale,
        weights=weights,
        intercept=intercept,
        ranker=booster,
        lr_spread=float(logit.std()) or 1.0,
        ranker_spread=float(ranked.std()) or 1.0,
        ranker_weight=ranker_weight,
    )


def calibration(data: TrainingSet, until: date) -> tuple[list[float], list[float]]:
    """Isotonic curve from rolling out-of-sample scores of the months before ``until``."""
    scores: list[NDArray[np.float64]] = []
    outcomes: list[NDArray[np.int8]] = []
    for start, end in _calibration_months(until):
        train, test = data.days < start, (data.days >= start) & (data.days < end)
        if not test.any() or data.targets(start)[train].sum() == 0:
            continue
        scores.append(fit_blend(data, train, start).score(data.features[test]))
        outcomes.append(data.targets(until.toordinal())[test])
    if not scores:
        return [], []
    return isotonic_curve(np.concatenate(scores), np.concatenate(outcomes))


def isotonic_curve(
    scores: NDArray[np.float64], outcomes: NDArray[np.int8]
) -> tuple[list[float], list[float]]:
    """The increasing curve score → chance that :meth:`TrendingModel.chance` interpolates."""
    curve = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0)
    curve.fit(scores, outcomes)
    return _rounded(curve.X_thresholds_), _rounded(curve.y_thresholds_)


def _calibration_months(until: date) -> list[tuple[int, int]]:
    """The last ``CALIBRATION_MONTHS`` months before ``until`` (the last may end at it)."""
    starts: list[date] = []
    month = date(until.year, until.month, 1)
    if month == until:
        month = _previous_month(month)
    while len(starts) < CALIBRATION_MONTHS:
        starts.insert(0, month)
        month = _previous_month(month)
    ends = [*starts[1:], until]
    return [(start.toordinal(), end.toordinal()) for start, end in zip(starts, ends, strict=True)]


def _previous_month(first: date) -> date:
    return date(first.year - 1, 12, 1) if first.month == 1 else date(first.year, first.month - 1, 1)


def train(replay: Replay, until: date) -> TrendingModel:
    """``replay`` must hold only labels dated before ``until`` (see :func:`window_labels`)."""
    data = training_set(replay, until)
    every = np.ones(len(data.days), dtype=bool)
    blend = fit_blend(data, every, until.toordinal())
    curve_scores, curve_chances = calibration(data, until)
    targets = data.targets(until.toordinal())
    return TrendingModel(
        model_id=_model_id(until, blend),
        trained_from=replay.days()[0].isoformat(),
        trained_until=until.isoformat(),
        features=list(FEATURE_NAMES),
        mean=_rounded(blend.mean),
        scale=_rounded(blend.scale),
        weights=_rounded(blend.weights),
        intercept=round(blend.intercept, 6),
        ranker=blend.ranker.model_to_string(),
        lr_spread=round(blend.lr_spread, 6),
        ranker_spread=round(blend.ranker_spread, 6),
        ranker_weight=RANKER_WEIGHT,
        calibration_scores=curve_scores,
        calibration_chances=curve_chances,
        metrics={
            "papers": float(len(targets)),
            "featured": float(targets.sum()),
            "train_auc": round(roc_auc(list(blend.score(data.features)), _as_upvotes(targets)), 4),
            "calibration_points": float(len(curve_scores)),
        },
        hyperparameters={
            "estimator": "logistic_regression + lightgbm_lambdarank",
            "C": REGULARISATION,
            "ranker_weight": RANKER_WEIGHT,
            **{f"ranker_{key}": value for key, value in RANKER_PARAMS.items() if key != "verbose"},
            "calibration": f"isotonic, rolling out-of-sample, last {CALIBRATION_MONTHS} months",
        },
    )


def _as_upvotes(targets: NDArray[np.int8]) -> list[int | None]:
    return [1 if target else None for target in targets]


def _rounded(values: NDArray[np.float64]) -> list[float]:
    return [float(f"{value:.6g}") for value in values]


def _model_id(until: date, blend: Blend) -> str:
    payload = [_rounded(blend.weights), round(blend.intercept, 6), blend.ranker.model_to_string()]
    digest = hashlib.sha256(json.dumps(payload).encode())
    return f"trending-blend-{until.isoformat()}-{digest.hexdigest()[:8]}"
