"""Parsing what a URL asks for: dates, ISO weeks, months, periods (pure).

Each parser raises :class:`BadInputError` with a message fit to show the caller.
"""

from __future__ import annotations

import re
from datetime import date

from ranking.periods import Period

_WEEK = re.compile(r"(\d{4})-W(\d{2})")
_MONTH = re.compile(r"(\d{4})-(\d{2})")
PERIOD_NAMES: dict[str, Period] = {"day": "day", "week": "week", "month": "month"}


class BadInputError(ValueError):
    """A request parameter that cannot be understood; the message says which and why."""


def parse_day(text: str, name: str = "date") -> date:
    try:
        return date.fromisoformat(text) if len(text) == 10 else _fail()
    except ValueError:
        raise BadInputError(f"{name} must be a date as YYYY-MM-DD, got {text[:40]!r}") from None


def _fail() -> date:
    raise ValueError


def parse_week(text: str) -> date:
    """The Monday of ISO week ``YYYY-Www``."""
    match = _WEEK.fullmatch(text)
    try:
        if match is None:
            raise ValueError
        return date.fromisocalendar(int(match[1]), int(match[2]), 1)
    except ValueError:
        raise BadInputError(f"week must be an ISO week as YYYY-Www, got {text[:40]!r}") from None


def parse_month(text: str) -> date:
    """The first day of month ``YYYY-MM``."""
    match = _MONTH.fullmatch(text)
    try:
        if match is None:
            raise ValueError
        return date(int(match[1]), int(match[2]), 1)
    except ValueError:
        raise BadInputError(f"month must be YYYY-MM, got {text[:40]!r}") from None


def parse_period(text: str) -> Period:
    if text not in PERIOD_NAMES:
        raise BadInputError(f"period must be one of day, week, month; got {text[:40]!r}")
    return PERIOD_NAMES[text]


def edition_key(
    date_: str | None, week: str | None, month: str | None
) -> tuple[Period, date | None]:
    """Which edition ``?date=|week=|month=`` names; at most one may be given."""
    given = [
        (name, value)
        for name, value in (("date", date_), ("week", week), ("month", month))
        if value
    ]
    if len(given) > 1:
        raise BadInputError("give at most one of date, week and month")
    if not given:
        return "day", None
    name, value = given[0]
    if name == "week":
        return "week", parse_week(value)
    if name == "month":
        return "month", parse_month(value)
    return "day", parse_day(value)


def key_label(period: Period, key: date) -> str:
    if period == "week":
        year, week, _ = key.isocalendar()
        return f"{year}-W{week:02d}"
    if period == "month":
        return key.strftime("%Y-%m")
    return key.isoformat()
