"""The public scorecard: ``/accuracy`` and its Atom feed ``/feeds/accuracy.atom``."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from sqlalchemy import func, select

from app.core.models import Edition, HfDailyPaper
from app.web.accuracy import AccuracyPage, accuracy_atom, accuracy_page
from app.web.caching import cached
from app.web.context import ContextDep, SessionDep
from app.web.feeds import MEDIA_TYPES

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
