"""The trained prior as a small versioned artifact (JSON, never pickle), and its scoring (pure).

The prior is a logistic regression over standardised features, so its logit splits exactly
into one part per feature group: ``prior`` (intercept + text + metadata), ``author_history``
and ``topic_momentum``. The artifact stores the training window, the feature list and the
training metrics next to the weights.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ranking.trending.features import FEATURE_GROUPS, FEATURE_NAMES

ARTIFACT_FORMAT = 1
SHIPPED_ARTIFACT = "trending-2026-01-01.json"
# Groups folded into the prior component; the others are components of their own.
PRIOR_GROUPS = ("content", "metadata")


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
    metrics: dict[str, float] = field(default_factory=dict)
    hyperparameters: dict[str, float | str] = field(default_factory=dict)
    format: int = ARTIFACT_FORMAT

    def metadata(self) -> dict[str, Any]:
        """Everything but the numbers: what eval-trending reports about the model."""
        keep = ("model_id", "trained_from", "trained_until", "metrics", "hyperparameters", "format")
        return {key: value for key, value in asdict(self).items() if key in keep} | {
            "n_features": len(self.features)
        }

    def components(self, features: NDArray[np.float64]) -> dict[str, NDArray[np.float64]]:
        """Each component's share of the logit, per row of ``features``."""
        contributions = (features - np.asarray(self.mean)) / np.asarray(self.scale)
        contributions *= np.asarray(self.weights)
        parts = {
            group: contributions[:, _columns(names)].sum(axis=1)
            for group, names in FEATURE_GROUPS.items()
        }
        prior = self.intercept + sum(parts.pop(group) for group in PRIOR_GROUPS)
        return {"prior": np.asarray(prior, dtype=np.float64), **parts}


def _columns(names: tuple[str, ...]) -> list[int]:
    index = {name: position for position, name in enumerate(FEATURE_NAMES)}
    return [index[name] for name in names]


def save_model(model: TrendingModel, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(model), indent=1, sort_keys=True) + "\n", encoding="utf-8")


def load_model(path: Path | None = None) -> TrendingModel:
    """The artifact at ``path``, or the one shipped with the package."""
    if path is None:
        text = resources.files("ranking.trending").joinpath("models", SHIPPED_ARTIFACT).read_text()
    elif not path.is_file():
        raise ModelArtifactError(f"no such model file: {path}")
    else:
        text = path.read_text(encoding="utf-8")
    try:
        model = TrendingModel(**json.loads(text))
    except (json.JSONDecodeError, TypeError) as error:
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
