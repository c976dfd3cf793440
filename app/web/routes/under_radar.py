"""Under the radar: ``/under-the-radar`` (``?week=YYYY-Www``) and its Atom feed
``/feeds/under-the-radar.atom``."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from app.services.radar import under_radar_week
from app.web.caching import cached
from app.web.context import ContextDep, SessionDep
from app.web.feeds import MEDIA_TYPES
from app.web.forms import WeekMonday
from app.web.under_radar import under_radar_atom

router = APIRouter(include_in_schema=False)


@router.get("/under-the-radar", response_class=HTMLResponse)
def under_the_radar(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    week: WeekMonday,
) -> Response:
    page = under_radar_week(session, week)
    return context.respond(request, "pages/under_radar.html", page)


@router.get("/feeds/under-the-radar.atom")
def under_the_radar_feed(request: Request, context: ContextDep, session: SessionDep) -> Response:
    site = context.settings.public_base_url.rstrip("/")
    body = under_radar_atom(under_radar_week(session, None), site)
    return cached(request, body, MEDIA_TYPES["atom"])
