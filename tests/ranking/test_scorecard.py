"""The scorecard's figures: the days that count, and the same Brier skill and calibration
error ``eval-trending`` reports for the same days."""

from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest

from ranking.scorecard import Call, DayOutcome, scorecard
from ranking.trending.artifact import training_period
from ranking.trending.metrics import MIN_POOL, calibration_summary
from ranking.trending.model import load_model

MONDAY = date(2025, 12, 15)


def _day(offset: int, featured: set[int], size: int = MIN_POOL, seed: int = 0) -> DayOutcome:
    rng = np.random.default_rng(seed + offset)
    chances = rng.uniform(0.0, 0.3, size)
    return DayOutcome(
        MONDAY + timedelta(days=offset),
        [Call(f"2512.{offset:02d}{n:03d}", float(c), n in featured) for n, c in enumerate(chances)],
    )


def test_a_day_counts_with_a_full_pool_and_a_featured_paper() -> None:
    kept = _day(0, {1})
    small = _day(1, {1}, size=MIN_POOL - 1)
    unknown = _day(2, set())
    card = scorecard([kept, small, unknown])
    assert card.overall is not None and card.overall.days == 1
    assert [one.day for one, _ in card.days] == [kept.day]


def test_brier_skill_and_calibration_error_are_eval_trendings() -> None:
    days = [_day(n, {n % 5, 7 + n % 3}, size=MIN_POOL + 3 * n) for n in range(9)]
    card = scorecard(days)
    per_day = [
        (np.array([c.chance for c in one.calls]), np.array([c.featured for c in one.calls], float))
        for one in days
    ]
    theirs = calibration_summary(per_day)
    assert card.overall is not None
    assert card.overall.brier_skill == pytest.approx(theirs["brier_skill"]["mean"])
    assert card.overall.ece == pytest.approx(theirs["ece"]["mean"])
    assert [b.papers for b in card.bins] == [int(r["papers"]) for r in theirs["reliability"]]


def test_weeks_group_days_by_monday_and_days_list_newest_first() -> None:
    days = [_day(n, {2}) for n in (0, 1, 7, 8, 9)]
    card = scorecard(days)
    assert [(monday, found.days) for monday, found in card.weeks] == [
        (MONDAY, 2),
        (MONDAY + timedelta(days=7), 3),
    ]
    assert [one.day for one, _ in card.days] == sorted((d.day for d in days), reverse=True)


def test_hits_misses_and_the_overrated_are_ordered_by_the_chance_given() -> None:
    card = scorecard([_day(0, set(range(12)), size=40)])
    hits = [one.call.chance for one in card.hits]
    missed = [one.call.chance for one in card.missed]
    overrated = [one.call.chance for one in card.overrated]
    assert all(one.call.featured for one in card.hits + card.missed)
    assert not any(one.call.featured for one in card.overrated)
    assert hits == sorted(hits, reverse=True) and missed == sorted(missed)
    assert overrated == sorted(overrated, reverse=True) and min(hits) >= max(missed)


def test_no_day_no_figures() -> None:
    card = scorecard([])
    assert card.overall is None and card.bins == [] and card.weeks == [] and card.hits == []


def test_the_shipped_models_training_period_is_read_without_loading_it(tmp_path: Path) -> None:
    said = training_period()
    model = load_model()
    assert said is not None and said.model_id == model.model_id
    assert (said.trained_from.isoformat(), said.trained_until.isoformat()) == (
        model.trained_from,
        model.trained_until,
    )
    broken = tmp_path / "model.json"
    broken.write_text('{"model_id": "x"}')
    assert training_period(broken) is None and training_period(tmp_path / "none.json") is None
