"""The calibration metrics of eval-trending: honest forecasts pass, a constant one fails."""

from __future__ import annotations

import numpy as np

from ranking.trending.metrics import (
    brier_skill,
    calibration_summary,
    expected_calibration_error,
    reliability,
)

ECE_GOAL, SKILL_GOAL = 0.02, 0.15


def _world(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Papers of 40 days whose true chances are known; outcomes drawn from them."""
    generator = np.random.default_rng(seed)
    chances = generator.beta(0.15, 2.0, size=8000)
    featured = (generator.random(8000) < chances).astype(np.float64)
    days = np.repeat(np.arange(40), 200)
    return chances, featured, days


def test_true_chances_are_calibrated_and_skilful() -> None:
    chances, featured, days = _world()
    assert expected_calibration_error(chances, featured) < ECE_GOAL
    assert brier_skill(chances, featured, days) > SKILL_GOAL


def test_a_constant_forecast_fails_the_goals() -> None:
    """Always the base rate: no skill at all (and ECE alone could not tell, which is why
    both goals are asked)."""
    _, featured, days = _world()
    constant = np.full_like(featured, featured.mean())
    assert brier_skill(constant, featured, days) <= 0.0 < SKILL_GOAL


def test_overconfident_chances_show_in_the_ece_and_the_reliability_table() -> None:
    chances, featured, _ = _world()
    doubled = np.minimum(1.0, chances * 2)
    assert expected_calibration_error(doubled, featured) > 2 * ECE_GOAL
    table = reliability(doubled, featured)
    assert len(table) == 10 and sum(row["papers"] for row in table) == len(chances)
    top = table[-1]
    assert top["mean_chance"] > top["featured_share"] + 0.05


def test_the_summary_keeps_the_results_shape_with_intervals() -> None:
    chances, featured, days = _world()
    per_day = [(chances[days == d], featured[days == d]) for d in range(40)]
    summary = calibration_summary(per_day)
    for metric in ("ece", "brier_skill"):
        low, high = summary[metric]["ci95"]
        assert low <= summary[metric]["mean"] <= high
    assert len(summary["reliability"]) == 10
