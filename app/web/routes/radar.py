"""The emerging-topic radar: ``/emerging`` (``?week=YYYY-Www`` for an earlier week) and its
Atom feed ``/feeds/emerging.atom``.

Under the radar: ``/under-the-radar`` (``?week=YYYY-Www``) and its Atom feed
``/feeds/under-the-radar.atom``.
"""

from __future__ import annotations

from datetime import date

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from sqlalchemy import func, select

from app.core.models import EmergingTopic, Paper
from app.services.radar import flagged_weeks, under_radar_week
from app.web.caching import cached
from app.web.context import ContextDep, SessionDep
from app.web.emerging import EmergingPage, emerging_atom, emerging_page
from app.web.feeds import MEDIA_TYPES
from app.web.forms import WeekMonday
from app.web.under_radar import under_radar_atom, under_radar_page

router = APIRouter(include_in_schema=False)
FEED_WEEKS = 8


@router.get("/emerging", response_class=HTMLResponse)
def emerging(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    week: WeekMonday,
) -> Response:
    page = _page(context, session, week)
    return context.respond(request, "pages/emerging.html", page)


@router.get("/feeds/emerging.atom")
def emerging_feed(request: Request, context: ContextDep, session: SessionDep) -> Response:
    site = context.settings.public_base_url.rstrip("/")
    weeks = flagged_weeks(session)[:FEED_WEEKS]
    pages = [_page(context, session, week) for week in weeks]
    body = emerging_atom([(page.week, page.cards) for page in pages if page.week], site)
    return cached(request, body, MEDIA_TYPES["atom"])


def _page(context: ContextDep, session: SessionDep, week: date | None) -> EmergingPage:
    """Kept in the memo until the radar stores new flags or new papers arrive (a store too
    short for the radar says how far it reaches)."""
    stored, latest = session.execute(
        select(
            func.max(EmergingTopic.computed_at),
            select(func.max(Paper.announced_on)).scalar_subquery(),
        )
    ).one()
    return context.memo.get(
        ("emerging", week, stored, latest),
        lambda: emerging_page(session, week, context.settings.embedding_model),
    )


@router.get("/under-the-radar", response_class=HTMLResponse)
def under_the_radar(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    week: WeekMonday,
) -> Response:
    found = under_radar_week(session, week)
    page = under_radar_page(found, context.settings.topic_window_days)
    return context.respond(request, "pages/under_radar.html", page)


@router.get("/feeds/under-the-radar.atom")
def under_the_radar_feed(request: Request, context: ContextDep, session: SessionDep) -> Response:
    site = context.settings.public_base_url.rstrip("/")
    body = under_radar_atom(under_radar_week(session, None), site)
    return cached(request, body, MEDIA_TYPES["atom"])
