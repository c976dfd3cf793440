"""arXiv's announcement calendar (pure): which evenings bring a new listing, and when to fetch it.

arXiv announces Sunday-Thursday at 20:00 US/Eastern, nothing on Friday and Saturday, and
nothing on its holidays (``arxiv_holidays.txt`` plus ``PAPERBOY_ARXIV_HOLIDAYS``). Times are
built in US/Eastern, so the fetch stays at 20:00 local across daylight-saving changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from apscheduler.triggers.base import BaseTrigger

EASTERN = ZoneInfo("America/New_York")
ANNOUNCED_AT = time(20, 0)
HOLIDAYS_FILE = Path(__file__).resolve().parent / "arxiv_holidays.txt"
# Sunday..Thursday in Python's Monday=0 numbering.
ANNOUNCING_WEEKDAYS = frozenset({6, 0, 1, 2, 3})


def shipped_holidays(path: Path = HOLIDAYS_FILE) -> frozenset[date]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return frozenset(date.fromisoformat(line) for line in lines if line)


def holidays(extra: Iterable[date] = ()) -> frozenset[date]:
    return shipped_holidays() | frozenset(extra)


def announces(day: date, closed: frozenset[date]) -> bool:
    """Whether arXiv announces on the evening of ``day`` (a US/Eastern date)."""
    return day.weekday() in ANNOUNCING_WEEKDAYS and day not in closed


def announcement_time(listing_day: date) -> datetime:
    """When arXiv made a listing day public: 20:00 US/Eastern the evening before it."""
    return datetime.combine(listing_day - timedelta(days=1), ANNOUNCED_AT, tzinfo=EASTERN)


def fetch_time(day: date, margin: timedelta) -> datetime:
    return datetime.combine(day, ANNOUNCED_AT, tzinfo=EASTERN) + margin


def next_fetch(after: datetime, closed: frozenset[date], margin: timedelta) -> datetime:
    """The first fetch time (announcement + margin) at or after ``after``."""
    day = after.astimezone(EASTERN).date() - timedelta(days=1)
    while True:
        if announces(day, closed) and fetch_time(day, margin) >= after:
            return fetch_time(day, margin)
        day += timedelta(days=1)


def expected_listing_days(
    now: datetime, closed: frozenset[date], margin: timedelta, count: int
) -> list[date]:
    """The listing days of the last ``count`` announcements fetched by ``now``, newest first.

    A listing is dated the morning after its evening's announcement (Sunday evening's is
    Monday's), and counts as expected once its fetch time (announcement + margin) has passed.
    """
    evening = now.astimezone(EASTERN).date()
    days: list[date] = []
    while len(days) < count:
        if announces(evening, closed) and fetch_time(evening, margin) <= now:
            days.append(evening + timedelta(days=1))
        evening -= timedelta(days=1)
    return days


class AnnouncementTrigger(BaseTrigger):  # type: ignore[misc]
    """APScheduler trigger firing ``margin`` after each arXiv announcement."""

    def __init__(self, closed: frozenset[date], margin: timedelta) -> None:
        self.closed = closed
        self.margin = margin

    def get_next_fire_time(
        self, previous_fire_time: datetime | None, now: datetime
    ) -> datetime | None:
        after = now if previous_fire_time is None else max(now, previous_fire_time)
        if previous_fire_time is not None and after == previous_fire_time:
            after += timedelta(seconds=1)
        return next_fetch(after, self.closed, self.margin)

    def __str__(self) -> str:
        minutes = int(self.margin.total_seconds() // 60)
        return f"Sun-Thu 20:00 US/Eastern + {minutes} min, except arXiv holidays"
