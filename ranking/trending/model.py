"""The trained model as a small versioned artifact (JSON, never pickle), and its scoring (pure).

Two learners, blended (chosen by rolling validation inside the training period):

* a logistic regression over every standardised feature (the paper's embedding included),
  whose logit splits exactly into one part per feature group;
* a LightGBM ranker (lambdarank, one query per announcement day) over the tabular features
  (metadata, author and team history, topic), stored as LightGBM's own text model, whose
  per-feature contributions (``pred_contrib``) also split exactly by group.

The score is ``logit / lr_spread + ranker_weight * ranker / ranker_spread`` (each learner
divided by the spread of its training scores), so it still splits into the components
``prior`` (intercepts + text + metadata), ``author_history`` and ``topic_momentum``.
``chance`` maps a score to the probability of being featured with the isotonic curve fitted
on rolling out-of-sample scores before the training cut-off (``calibration``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import lightgbm as lgb
import numpy as np
from numpy.typing import NDArray

from ranking.trending.artifact import artifact_file
from ranking.trending.features import FEATURE_GROUPS, FEATURE_NAMES, columns

ARTIFACT_FORMAT = 2
# Groups folded into the prior component; the others are components of their own.
PRIOR_GROUPS = ("content", "metadata")
RANKER_FEATURES = tuple(name for name in FEATURE_NAMES if name not in FEATURE_GROUPS["content"])
RANKER_COLUMNS = columns(RANKER_FEATURES)


class ModelArtifactError(ValueError):
    """A model file that cannot be used; the message says why."""


@dataclass(frozen=True)
class TrendingModel:
    model_id: str
    trained_from: str
    trained_until: str
    features: list[str]
    mean: list[float]
    scale: list[float]
    weights: list[float]
    intercept: float
    ranker: str = ""  # LightGBM's text model over RANKER_FEATURES ("" = logistic only)
    lr_spread: float = 1.0
    ranker_spread: float = 1.0
    ranker_weight: float = 0.0
    # Isotonic curve: chance of being featured at each score threshold (increasing).
    calibration_scores: list[float] = field(default_factory=list)
    calibration_chances: list[float] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)
    hyperparameters: dict[str, float | str] = field(default_factory=dict)
    format: int = ARTIFACT_FORMAT

    def metadata(self) -> dict[str, Any]:
        """Everything but the numbers: what eval-trending reports about the model."""
        keep = ("model_id", "trained_from", "trained_until", "metrics", "hyperparameters", "format")
        return {key: value for key, value in asdict(self).items() if key in keep} | {
            "n_features": len(self.features)
        }

    @cached_property
    def _booster(self) -> lgb.Booster | None:
        return lgb.Booster(model_str=self.ranker) if self.ranker else None

    def components(self, features: NDArray[np.float64]) -> dict[str, NDArray[np.float64]]:
        """Each component's share of the score, per row of ``features``."""
        contributions = (features - np.asarray(self.mean)) / np.asarray(self.scale)
        contributions *= np.asarray(self.weights) / self.lr_spread
        parts = {
            group: contributions[:, columns(names)].sum(axis=1)
            for group, names in FEATURE_GROUPS.items()
        }
        prior = self.intercept / self.lr_spread + sum(parts.pop(group) for group in PRIOR_GROUPS)
        for group, values in self._ranker_parts(features).items():
            if group in PRIOR_GROUPS or group == "bias":
                prior = prior + values
            else:
                parts[group] = parts[group] + values
        return {"prior": np.asarray(prior, dtype=np.float64), **parts}

    def _ranker_parts(self, features: NDArray[np.float64]) -> dict[str, NDArray[np.float64]]:
        booster = self._booster
        if booster is None or len(features) == 0:
            return {}
        contrib = np.asarray(booster.predict(features[:, RANKER_COLUMNS], pred_contrib=True))
        contrib *= self.ranker_weight / self.ranker_spread
        names = {name: position for position, name in enumerate(RANKER_FEATURES)}
        parts = {
            group: contrib[:, [names[n] for n in group_names if n in names]].sum(axis=1)
            for group, group_names in FEATURE_GROUPS.items()
            if group != "content"
        }
        return parts | {"bias": contrib[:, -1]}

    def chance(self, scores: NDArray[np.float64]) -> NDArray[np.float64]:
        """The calibrated probability of being featured for each score (before community)."""
        if not self.calibration_scores:
            return np.full(len(scores), np.nan)
        return np.interp(scores, self.calibration_scores, self.calibration_chances)


def save_model(model: TrendingModel, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_fields(model), indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _fields(model: TrendingModel) -> dict[str, Any]:
    return {name: getattr(model, name) for name in TrendingModel.__dataclass_fields__}


def load_model(path: Path | None = None) -> TrendingModel:
    """The artifact at ``path``, or the one shipped with the package."""
    if path is not None and not path.is_file():
        raise ModelArtifactError(f"no such model file: {path}")
    try:
        model = TrendingModel(**json.loads(artifact_file(path).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, RecursionError) as error:
        # ValueError: not JSON, or not UTF-8 at all (a corrupted file).
        raise ModelArtifactError(f"not a trending model artifact: {error}") from None
    _check(model)
    return model


def _check(model: TrendingModel) -> None:
    if model.format != ARTIFACT_FORMAT or tuple(model.features) != FEATURE_NAMES:
        raise ModelArtifactError(
            f"model {model.model_id} was trained with other features or format; retrain it"
        )
    sizes = {len(model.mean), len(model.scale), len(model.weights)}
    if sizes != {len(FEATURE_NAMES)}:
        raise ModelArtifactError(f"model {model.model_id} has weights of the wrong size")
    if len(model.calibration_scores) != len(model.calibration_chances):
        raise ModelArtifactError(f"model {model.model_id} has a broken calibration curve")
    if model.ranker:
        try:
            lgb.Booster(model_str=model.ranker)
        except lgb.basic.LightGBMError as error:
            raise ModelArtifactError(
                f"model {model.model_id}: unreadable ranker ({error})"
            ) from None
