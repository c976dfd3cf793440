"""Which announcement days hold papers, and which of them no day edition ranks yet.

An announcement day is a day some stored paper was announced on; days without one (weekends,
holidays) are skipped by whatever walks a range of days.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import Edition, Paper
from app.core.periods import span


def announcement_days(session: Session, first: date, last: date) -> list[date]:
    """The days in ``first..last`` some stored paper was announced on, oldest first."""
    query = (
        select(Paper.announced_on)
        .where(Paper.announced_on >= first, Paper.announced_on <= last)
        .distinct()
        .order_by(Paper.announced_on)
    )
    return [day for day in session.scalars(query) if day is not None]


def ranked_days(session: Session) -> list[date]:
    """The days a day edition was published for, oldest first."""
    query = select(Edition.edition_date).where(Edition.period == "day").distinct()
    return sorted(session.scalars(query))


def unranked_days(session: Session, until: date) -> list[date]:
    """Announcement days up to ``until`` with no day edition, from the oldest ranked day on.

    These are the gaps a missed or failed run left. Before anything is ranked there are none:
    a bulk import of years of papers is history to fill by hand (``paperboy rank --from
    --to``), not work for one daily run.
    """
    oldest = session.scalar(select(func.min(Edition.edition_date)).where(Edition.period == "day"))
    if oldest is None:
        return []
    ranked = set(ranked_days(session))
    return [day for day in announcement_days(session, oldest, until) if day not in ranked]


def closing_days(days: list[date]) -> list[date]:
    """Of ``days`` (oldest first), those after which their week and month are published: the
    last day ranked of each week and of each month, so filling a range builds every week and
    month once, from all of its ranked days, instead of once per day."""
    followers: list[date | None] = [*days[1:], None] if days else []
    return [
        day
        for day, following in zip(days, followers, strict=True)
        if following is None or _periods(day) != _periods(following)
    ]


def _periods(day: date) -> tuple[date, date]:
    return span("week", day).key, span("month", day).key
