"""The week in review's page: a stored write-up (``week_reviews``) as the template reads it.

The review is stored as JSON by the daily job (``ranking.week_review``); the page only reads
it, so rendering a week twice gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import WeekReview


@dataclass(frozen=True, slots=True)
class WeekReviewPage:
    week: date | None  # the Monday of the week shown
    weeks: list[date]  # every week written up, newest first
    review: dict[str, Any] | None
    week_end: date | None  # the Sunday of the week shown


def reviewed_weeks(session: Session) -> list[date]:
    return list(session.scalars(select(WeekReview.week).order_by(WeekReview.week.desc())))


def week_review_page(session: Session, week: date | None) -> WeekReviewPage:
    """The write-up of ``week`` (a Monday; None: the newest)."""
    weeks = reviewed_weeks(session)
    shown = week if week is not None else (weeks[0] if weeks else None)
    stored = None if shown is None else session.get(WeekReview, shown)
    return WeekReviewPage(
        week=shown,
        weeks=weeks,
        review=None if stored is None else stored.body,
        week_end=None if shown is None else shown + timedelta(days=6),
    )
