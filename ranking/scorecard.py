"""Were we right? Each published day's chances against what Hugging Face then featured (pure).

A day counts once its outcome is in: a pool of at least ``MIN_POOL`` papers of which Hugging
Face featured at least one, the rule ``eval-trending`` scores days by, so the two agree on the
same days. Brier skill is measured against each day's own base rate and the expected
calibration error over equal-count bins (:mod:`ranking.trending.metrics`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
from numpy.typing import NDArray

from ranking.trending.metrics import (
    MIN_POOL,
    brier_skill,
    expected_calibration_error,
    reliability,
)

CALLS_SHOWN = 5


@dataclass(frozen=True)
class Call:
    """One paper's chance and whether it was featured."""

    arxiv_id: str
    chance: float
    featured: bool


@dataclass(frozen=True)
class DayOutcome:
    day: date
    calls: list[Call]

    @property
    def scored(self) -> bool:
        """Whether the day counts: a full pool, and Hugging Face's picks of it are in."""
        return len(self.calls) >= MIN_POOL and any(call.featured for call in self.calls)


@dataclass(frozen=True)
class Skill:
    """Brier skill and calibration error over some days."""

    days: int
    papers: int
    featured: int
    brier_skill: float
    ece: float


@dataclass(frozen=True)
class Bin:
    """A reliability bin: the chances it holds, their mean, and the share featured."""

    low: float
    high: float
    mean_chance: float
    featured_share: float
    papers: int


@dataclass(frozen=True)
class DayCall:
    day: date
    call: Call


@dataclass(frozen=True)
class Scorecard:
    overall: Skill | None
    bins: list[Bin]
    weeks: list[tuple[date, Skill]]  # each week's Monday and its skill, oldest first
    days: list[tuple[DayOutcome, Skill]]  # each scored day, newest first
    hits: list[DayCall]  # featured papers given the highest chances
    missed: list[DayCall]  # featured papers given the lowest chances
    overrated: list[DayCall]  # the highest chances of papers never featured


def scorecard(outcomes: Sequence[DayOutcome]) -> Scorecard:
    scored = sorted((one for one in outcomes if one.scored), key=lambda one: one.day)
    weeks: dict[date, list[DayOutcome]] = {}
    for one in scored:
        weeks.setdefault(one.day.fromordinal(one.day.toordinal() - one.day.weekday()), []).append(
            one
        )
    every = [DayCall(one.day, call) for one in scored for call in one.calls]
    featured = [one for one in every if one.call.featured]
    ignored = [one for one in every if not one.call.featured]
    return Scorecard(
        overall=skill(scored),
        bins=_bins(scored),
        weeks=[(monday, found) for monday, days in weeks.items() if (found := skill(days))],
        days=[(one, found) for one in reversed(scored) if (found := skill([one]))],
        hits=_by_chance(featured, highest=True),
        missed=_by_chance(featured, highest=False),
        overrated=_by_chance(ignored, highest=True),
    )


def skill(days: Sequence[DayOutcome]) -> Skill | None:
    if not days:
        return None
    chances, featured, numbers = _arrays(days)
    return Skill(
        days=len(days),
        papers=len(chances),
        featured=int(featured.sum()),
        brier_skill=brier_skill(chances, featured, numbers),
        ece=expected_calibration_error(chances, featured),
    )


def _arrays(
    days: Sequence[DayOutcome],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    chances = np.array([call.chance for one in days for call in one.calls], dtype=np.float64)
    featured = np.array([call.featured for one in days for call in one.calls], dtype=np.float64)
    numbers = np.array([n for n, one in enumerate(days) for _ in one.calls], dtype=np.int64)
    return chances, featured, numbers


def _bins(days: Sequence[DayOutcome]) -> list[Bin]:
    if not days:
        return []
    chances, featured, _ = _arrays(days)
    return [
        Bin(
            low=row["low"],
            high=row["high"],
            mean_chance=row["mean_chance"],
            featured_share=row["featured_share"],
            papers=int(row["papers"]),
        )
        for row in reliability(chances, featured)
    ]


def _by_chance(calls: list[DayCall], highest: bool) -> list[DayCall]:
    order = sorted(calls, key=lambda one: (one.call.chance, one.call.arxiv_id))
    return (order[::-1] if highest else order)[:CALLS_SHOWN]
