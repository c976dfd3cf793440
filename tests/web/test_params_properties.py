"""Dates, weeks, months and periods as a URL may ask for them, at random: read or refused."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.core.periods import span
from app.web.forms import (
    BadInputError,
    edition_key,
    key_label,
    parse_day,
    parse_month,
    parse_period,
    parse_week,
)

DAYS = st.dates(date(1, 1, 1), date(9999, 12, 31))
LAST_WEEK = date.fromisocalendar(9999, 52, 1)  # it ends after date.max
SPELLED = DAYS.flatmap(
    lambda day: st.sampled_from(
        [day.isoformat(), key_label("week", day), key_label("month", day), day.strftime("%Y%m%d")]
    )
)


@st.composite
def near_misses(draw: st.DrawFn) -> str:
    """A valid spelling with one character replaced (often a digit of another script)."""
    text = draw(SPELLED)
    at = draw(st.integers(0, len(text) - 1))
    other = st.characters() | st.characters(categories=["Nd"])
    return text[:at] + draw(other) + text[at + 1 :]


TEXT = st.text(max_size=20) | SPELLED | near_misses()
PARSERS: list[Callable[[str], object]] = [parse_day, parse_week, parse_month, parse_period]


@given(st.sampled_from(PARSERS), TEXT)
@settings(max_examples=400, deadline=None)
def test_any_text_is_read_or_refused_with_a_message(
    parse: Callable[[str], object], text: str
) -> None:
    try:
        parse(text)
    except BadInputError as error:
        assert str(error)


@given(st.one_of(st.none(), TEXT), st.one_of(st.none(), TEXT), st.one_of(st.none(), TEXT))
@settings(max_examples=200, deadline=None)
def test_any_edition_query_names_one_edition_or_is_refused(
    day: str | None, week: str | None, month: str | None
) -> None:
    try:
        period, key = edition_key(day, week, month)
    except BadInputError as error:
        assert str(error)
        return
    if key is not None:
        assert span(period, key).key == key  # the first day of its edition
        assert edition_key(*_as_query(period, key_label(period, key))) == (period, key)


def _as_query(period: str, label: str) -> tuple[str | None, str | None, str | None]:
    return (
        label if period == "day" else None,
        label if period == "week" else None,
        label if period == "month" else None,
    )


@given(DAYS)
@example(date.min)
@example(date.max)
@settings(max_examples=100, deadline=None)
def test_every_day_reads_back_from_its_own_label(day: date) -> None:
    assert parse_day(key_label("day", day)) == day
    assert parse_month(key_label("month", day)) == span("month", day).key


@given(st.dates(date.min, LAST_WEEK - timedelta(days=1)))
@example(date.min)
@example(LAST_WEEK - timedelta(days=1))
@settings(max_examples=100, deadline=None)
def test_every_week_the_calendar_holds_reads_back_from_its_own_label(day: date) -> None:
    assert parse_week(key_label("week", day)) == span("week", day).key


@given(st.dates(LAST_WEEK, date.max))
@settings(max_examples=10, deadline=None)
def test_the_last_week_of_9999_is_refused_as_it_ends_past_the_calendar(day: date) -> None:
    with pytest.raises(BadInputError, match="week must end by 9999-12-31"):
        parse_week(key_label("week", day))
