"""Edition periods: which announcement days a day, week or month edition covers (pure).

A week is the ISO week (Monday to Sunday) and a month the calendar month holding the date;
each is keyed by its first day, and its pool is the papers announced from that first day up to
the date asked for, so the week's edition grows through the week under one key.
"""

from __future__ import annotations

from calendar import monthrange
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

Period = Literal["day", "week", "month"]
PERIODS: tuple[Period, ...] = ("day", "week", "month")
WEEK_TAIL = timedelta(days=6)  # from a week's Monday to its Sunday


@dataclass(frozen=True, slots=True)
class Span:
    period: Period
    key: date
    first: date
    last: date


def span(period: Period, day: date) -> Span:
    if period == "day":
        return Span(period=period, key=day, first=day, last=day)
    if period == "week":
        monday = day - timedelta(days=day.weekday())
        return Span(period=period, key=monday, first=monday, last=day)
    first = day.replace(day=1)
    return Span(period=period, key=first, first=first, last=day)


def last_day(period: Period, key: date) -> date:
    """The last calendar day of the edition of ``period`` keyed ``key`` (its first day).

    The calendar ends on ``date.max``: the last ISO week of 9999 runs past it, so it ends
    there, and no month's end is found by stepping into the month after it."""
    if period == "day":
        return key
    if period == "week":
        return key + WEEK_TAIL if key <= date.max - WEEK_TAIL else date.max
    return key.replace(day=monthrange(key.year, key.month)[1])
