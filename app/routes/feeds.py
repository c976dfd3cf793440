"""Feeds of the trending edition for readers: all of it, per category, per topic.

``/feeds/daily.{rss,atom,json}``, ``/feeds/category/{cat}.{...}``, ``/feeds/topic/{id}.{...}``;
each answers with an ETag and 304, like the API.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Path, Request, Response

from app.routes.pages import CATEGORY
from app.web import profiles, queries
from app.web.caching import cached
from app.web.context import ContextDep, SessionDep
from app.web.feeds import MEDIA_TYPES, RENDERERS, FeedSpec
from app.web.views import Card

router = APIRouter(prefix="/feeds", tags=["feeds"])
Format = Literal["rss", "atom", "json"]
TOPIC_ITEMS = 100
NO_EDITION = "no daily edition is published yet"


def _latest_day(session: SessionDep) -> tuple[list[Card], datetime]:
    key = queries.newest_edition_date(session, "day")
    edition = None if key is None else queries.latest_edition(session, "day", key)
    if edition is None:
        raise HTTPException(404, NO_EDITION)
    return queries.edition_cards(session, edition), edition.published_at


def _answer(request: Request, fmt: Format, spec: FeedSpec) -> Response:
    body = RENDERERS[fmt](spec)
    return cached(request, body, MEDIA_TYPES[fmt], spec.updated)


def _spec(
    context: ContextDep, title: str, page: str, feed: str, when: datetime, cards: list[Card]
) -> FeedSpec:
    site = context.settings.public_base_url.rstrip("/")
    description = f"{title}: the trending arXiv papers picked by Paperboy, with why."
    return FeedSpec(title, description, site, page, feed, when, cards)


@router.get("/daily.{fmt}")
def daily(request: Request, context: ContextDep, session: SessionDep, fmt: Format) -> Response:
    """The latest daily edition."""
    cards, when = _latest_day(session)
    spec = _spec(context, "Paperboy: trending today", "/", f"/feeds/daily.{fmt}", when, cards)
    return _answer(request, fmt, spec)


@router.get("/category/{category}.{fmt}")
def category(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    category: Annotated[str, Path(max_length=40, pattern=f"^{CATEGORY.pattern}$")],
    fmt: Format,
) -> Response:
    """The latest daily edition's papers in one arXiv category."""
    cards, when = _latest_day(session)
    chosen = [card for card in cards if category in card.paper.categories]
    page, feed = f"/?category={category}", f"/feeds/category/{category}.{fmt}"
    spec = _spec(context, f"Paperboy: trending in {category}", page, feed, when, chosen)
    return _answer(request, fmt, spec)


@router.get("/topic/{topic_id}.{fmt}")
def topic(
    request: Request, context: ContextDep, session: SessionDep, topic_id: int, fmt: Format
) -> Response:
    """A topic's papers, newest announcement day first."""
    page = profiles.topic_page(session, topic_id)
    if page is None:
        raise HTTPException(404, f"topic {topic_id} is not stored here")
    cards = [card for _, day_cards in page.days for card in day_cards][:TOPIC_ITEMS]
    when = datetime.combine(page.sizes[-1][0], datetime.min.time(), UTC)
    title = f"Paperboy topic: {page.topic.label}"
    spec = _spec(
        context, title, f"/topics/{topic_id}", f"/feeds/topic/{topic_id}.{fmt}", when, cards
    )
    return _answer(request, fmt, spec)
