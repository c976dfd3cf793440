"""The public scorecard: ``/accuracy`` and its Atom feed ``/feeds/accuracy.atom``.

The week in review: ``/week-in-review`` (``?week=YYYY-Www`` for an earlier week) and its
Atom feed ``/feeds/week-in-review.atom``.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from sqlalchemy import func, select

from app.core.models import Edition, HfDailyPaper, WeekReview
from app.web.accuracy import AccuracyPage, accuracy_atom, accuracy_page
from app.web.caching import cached
from app.web.context import ContextDep, SessionDep
from app.web.feeds import MEDIA_TYPES
from app.web.forms import WeekMonday
from app.web.week_review import week_review_atom, week_review_page

router = APIRouter(include_in_schema=False)


@router.get("/accuracy", response_class=HTMLResponse)
def accuracy(request: Request, context: ContextDep, session: SessionDep) -> Response:
    return context.respond(request, "pages/accuracy.html", _page(context, session))


@router.get("/feeds/accuracy.atom")
def accuracy_feed(request: Request, context: ContextDep, session: SessionDep) -> Response:
    site = context.settings.public_base_url.rstrip("/")
    body = accuracy_atom(_page(context, session), site)
    return cached(request, body, MEDIA_TYPES["atom"])


def _page(context: ContextDep, session: SessionDep) -> AccuracyPage:
    """Built once per newest edition and count of Hugging Face records: reading every day's
    pool takes a moment, and only a new edition or new records change it."""
    newest = session.scalar(select(func.max(Edition.id)))
    records = session.scalar(select(func.count()).select_from(HfDailyPaper))
    return context.memo.get(
        ("accuracy", newest, records),
        lambda: accuracy_page(session, context.settings.trending_model_path),
    )


FEED_WEEKS = 12


@router.get("/week-in-review", response_class=HTMLResponse)
def week_in_review(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    week: WeekMonday,
) -> Response:
    page = week_review_page(session, week)
    return context.respond(request, "pages/week_review.html", page)


@router.get("/feeds/week-in-review.atom")
def week_in_review_feed(request: Request, context: ContextDep, session: SessionDep) -> Response:
    site = context.settings.public_base_url.rstrip("/")
    newest = select(WeekReview).order_by(WeekReview.week.desc()).limit(FEED_WEEKS)
    rows = session.scalars(newest).all()
    body = week_review_atom([(row.week, row.body) for row in rows], site)
    return cached(request, body, MEDIA_TYPES["atom"])
