"""Where the trending model's artifact lies, and the period it says it learned from, read
without loading the model: a page that only names the model need not load LightGBM."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

SHIPPED_ARTIFACT = "trending-2026-01-01.json"


def artifact_file(path: Path | None = None) -> Path | Traversable:
    """The artifact at ``path``, or the one shipped with the package."""
    return path or resources.files("ranking.trending").joinpath("models", SHIPPED_ARTIFACT)


@dataclass(frozen=True)
class TrainingPeriod:
    model_id: str
    trained_from: date
    trained_until: date  # the first day the model never saw


def training_period(path: Path | None = None) -> TrainingPeriod | None:
    """What the artifact says of itself; None for a file that cannot say it."""
    try:
        fields = json.loads(artifact_file(path).read_text(encoding="utf-8"))
        return TrainingPeriod(
            model_id=str(fields["model_id"]),
            trained_from=date.fromisoformat(fields["trained_from"]),
            trained_until=date.fromisoformat(fields["trained_until"]),
        )
    except (OSError, ValueError, TypeError, KeyError):
        return None
