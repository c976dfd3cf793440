"""Whose digest is due (pure): frequency, weekday, delivery hour in the subscriber's time zone."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from app.core.periods import span


def due(
    frequency: str, weekday: int, hour: int, time_zone: str, day: date, now: datetime
) -> tuple[str, date] | None:
    """The (period, edition key) to send for edition day ``day`` at ``now``, or None yet."""
    local = now.astimezone(ZoneInfo(time_zone))
    if local.hour < hour:
        return None
    if frequency == "weekly":
        return ("week", span("week", day).key) if local.weekday() == weekday else None
    return ("day", day)
