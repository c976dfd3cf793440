"""Edition periods up to the calendar's ends: every day lies in its period, which ends on a date."""

from __future__ import annotations

from datetime import date

from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.core.periods import PERIODS, Period, last_day, span


@given(st.sampled_from(PERIODS), st.dates())
@example("month", date.max)
@example("week", date.max)
@example("week", date.min)
@settings(max_examples=200, deadline=None)
def test_every_day_lies_between_its_periods_first_and_last_day(period: Period, day: date) -> None:
    first = span(period, day).key
    assert first <= day <= last_day(period, first)


def test_a_month_ends_on_its_own_last_day_in_december_of_9999_too() -> None:
    assert last_day("month", date(9999, 12, 1)) == date.max
    assert last_day("month", date(2024, 2, 1)) == date(2024, 2, 29)
    assert last_day("month", date(2025, 2, 1)) == date(2025, 2, 28)


def test_the_last_week_of_9999_ends_on_the_calendars_last_day() -> None:
    assert last_day("week", date(9999, 12, 27)) == date.max
    assert last_day("week", date(9999, 12, 20)) == date(9999, 12, 26)
