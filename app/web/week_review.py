"""The week in review's page and its Atom feed: a stored write-up (``week_reviews``) as the
template reads it, and one feed entry per week written up, newest first.

The review is stored as JSON by the daily job (``ranking.week_review``); the page only reads
it, so rendering a week twice gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any
from xml.etree import ElementTree as ET  # builds, never parses: no untrusted XML is read here

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import Paper, WeekReview
from app.web.accuracy import REVIEW_WEEKS_BEFORE, WEEK_REVIEW, RecordedFigure
from app.web.feeds import ATOM, body, day_stamp, feed_head, link, text

WEEK = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class WeekReviewPage:
    week: date | None  # the Monday of the week shown
    weeks: list[date]  # every week written up, newest first
    review: dict[str, Any] | None
    week_end: date | None  # the Sunday of the week shown
    # Whole weeks stored before the week shown, up to the review's window (None: no week).
    weeks_before: int | None = None
    weeks_needed: int = REVIEW_WEEKS_BEFORE
    recorded: RecordedFigure = WEEK_REVIEW
    # Fewer weeks stored before it than the review compares each topic with.
    too_short: bool = False


def reviewed_weeks(session: Session) -> list[date]:
    return list(session.scalars(select(WeekReview.week).order_by(WeekReview.week.desc())))


def week_review_page(session: Session, week: date | None) -> WeekReviewPage:
    """The write-up of ``week`` (a Monday; None: the newest)."""
    weeks = reviewed_weeks(session)
    shown = week if week is not None else (weeks[0] if weeks else None)
    stored = None if shown is None else session.get(WeekReview, shown)
    before = None if shown is None else _weeks_before(session, shown)
    return WeekReviewPage(
        week=shown,
        weeks=weeks,
        review=None if stored is None else stored.body,
        week_end=None if shown is None else shown + timedelta(days=6),
        weeks_before=before,
        too_short=before is not None and before < REVIEW_WEEKS_BEFORE,
    )


def _weeks_before(session: Session, monday: date) -> int:
    """Whole weeks of stored papers before ``monday``, counted up to the review's window."""
    first: date | None = session.scalar(select(func.min(Paper.announced_on)))
    if first is None or first >= monday:
        return 0
    return min((monday - first).days // 7, REVIEW_WEEKS_BEFORE)


def week_review_atom(weeks: list[tuple[date, dict[str, Any]]], site_url: str) -> bytes:
    """One entry per week written up. ``weeks``: each week's Monday and its stored review,
    newest first."""
    feed = feed_head(
        "Paperboy: the week in review",
        f"{site_url}/week-in-review",
        f"{site_url}/feeds/week-in-review.atom",
        weeks[0][0] + WEEK if weeks else None,
    )
    for week, review in weeks:
        year, number, _ = week.isocalendar()
        page = f"{site_url}/week-in-review?week={year}-W{number:02d}"
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        text(entry, "title", f"The week of {week:%d %b %Y} in review")
        text(entry, "id", page)
        link(entry, page, "alternate")
        # Published on the Monday after the week: the day its review is whole.
        text(entry, "published", day_stamp(week + WEEK))
        text(entry, "updated", day_stamp(week + WEEK))
        text(entry, "summary", _summary(review), kind="text")
    return body(feed)


def _summary(review: dict[str, Any]) -> str:
    topics = "; ".join(f"{t['label']} ({t['trend']})" for t in review["topics"][:5])
    return (
        f"{review['papers']} papers; Hugging Face featured {review['featured']}, "
        f"{review['covered']} of them in the topics named. Topics: {topics}."
    )
