"""The week in review: ``/week-in-review`` (``?week=YYYY-Www`` for an earlier week) and its
Atom feed ``/feeds/week-in-review.atom``."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from sqlalchemy import select

from app.core.models import WeekReview
from app.web.caching import cached
from app.web.context import ContextDep, SessionDep
from app.web.feeds import MEDIA_TYPES
from app.web.forms import WeekMonday
from app.web.week_review import week_review_atom, week_review_page

router = APIRouter(include_in_schema=False)
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
