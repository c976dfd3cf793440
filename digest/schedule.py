"""Whose digest is due (pure): frequency, weekday, delivery hour in the subscriber's time zone."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from app.core.models import EditionKey, Frequency
from app.core.periods import span


def due(
    frequency: Frequency, weekday: int, hour: int, time_zone: str, day: date, now: datetime
) -> EditionKey | None:
    """The edition to send for edition day ``day`` at ``now``, or None yet."""
    local = now.astimezone(ZoneInfo(time_zone))
    if local.hour < hour:
        return None
    if frequency == Frequency.WEEKLY and local.weekday() != weekday:
        return None
    return edition_for(frequency, day)


def edition_for(frequency: Frequency, day: date) -> EditionKey:
    """The edition holding edition day ``day`` that a subscriber of ``frequency`` gets."""
    if frequency == Frequency.WEEKLY:
        return EditionKey("week", span("week", day).key)
    return EditionKey("day", day)
