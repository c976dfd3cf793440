"""Feeds of the trending edition for readers: all of it, per category, per topic.

``/feeds/daily.{rss,atom,json}``, ``/feeds/category/{cat}.{...}``, ``/feeds/topic/{id}.{...}``;
each answers with an ETag and 304, like the API.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Path, Request, Response

from app.core.models import Edition
from app.web import profiles, queries
from app.web.caching import Rendered, cached, rendered
from app.web.context import ContextDep, SessionDep
from app.web.feeds import MEDIA_TYPES, RENDERERS, FeedSpec
from app.web.params import TopicId
from app.web.routes.api import answers
from app.web.routes.pages import CATEGORY
from app.web.views import Card

FEED_CONTENT = {
    "application/rss+xml": {"schema": {"type": "string", "description": "RSS 2.0"}},
    "application/atom+xml": {"schema": {"type": "string", "description": "Atom 1.0"}},
    "application/feed+json": {
        "schema": {
            "type": "object",
            "description": "JSON Feed 1.1 (https://jsonfeed.org/version/1.1)",
            "required": ["version", "title", "items"],
        }
    },
}
FEED_ANSWERS: dict[int | str, dict[str, Any]] = answers(304, 400, 404, rate_limited=False)
FEED_ANSWERS[200] = FEED_ANSWERS[200] | {
    "description": "The feed, in the format `fmt` names",
    "content": FEED_CONTENT,
}
router = APIRouter(prefix="/feeds", tags=["feeds"], default_response_class=Response)
Format = Literal["rss", "atom", "json"]
TOPIC_ITEMS = 100
NO_EDITION = "no daily edition is published yet"
Build = Callable[[], FeedSpec]


def _latest_day(context: ContextDep, session: SessionDep) -> Edition:
    edition = context.edition(session, "day", None)
    if edition is None:
        raise HTTPException(404, NO_EDITION)
    return edition


def _answer(
    request: Request, context: ContextDep, fmt: Format, key: Hashable, build: Build
) -> Response:
    """The feed kept for ``key`` (built by ``build`` when missing), with its ETag."""

    def render() -> tuple[Rendered, datetime]:
        spec = build()
        return rendered(RENDERERS[fmt](spec)), spec.updated

    body, updated = context.memo.get((key, fmt), render)
    return cached(request, body, MEDIA_TYPES[fmt], updated)


def _spec(
    context: ContextDep, title: str, page: str, feed: str, when: datetime, cards: list[Card]
) -> FeedSpec:
    site = context.settings.public_base_url.rstrip("/")
    description = f"{title}: the trending arXiv papers picked by Paperboy, with why."
    return FeedSpec(title, description, site, page, feed, when, cards)


@router.get("/daily.{fmt}", responses=FEED_ANSWERS)
def daily(request: Request, context: ContextDep, session: SessionDep, fmt: Format) -> Response:
    """The latest daily edition."""
    edition = _latest_day(context, session)

    def build() -> FeedSpec:
        cards, feed = queries.edition_cards(session, edition), f"/feeds/daily.{fmt}"
        title = "Paperboy: trending today"
        return _spec(context, title, "/", feed, edition.published_at, cards)

    return _answer(request, context, fmt, ("feed", edition.id), build)


@router.get("/category/{category}.{fmt}", responses=FEED_ANSWERS)
def category(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    category: Annotated[str, Path(max_length=40, pattern=f"^{CATEGORY.pattern}$")],
    fmt: Format,
) -> Response:
    """The latest daily edition's papers in one arXiv category."""
    edition = _latest_day(context, session)

    def build() -> FeedSpec:
        cards = queries.edition_cards(session, edition)
        chosen = [card for card in cards if category in card.paper.categories]
        page, feed = f"/?category={category}", f"/feeds/category/{category}.{fmt}"
        title = f"Paperboy: trending in {category}"
        return _spec(context, title, page, feed, edition.published_at, chosen)

    return _answer(request, context, fmt, ("feed", edition.id, category), build)


@router.get("/topic/{topic_id}.{fmt}", responses=FEED_ANSWERS)
def topic(
    request: Request, context: ContextDep, session: SessionDep, topic_id: TopicId, fmt: Format
) -> Response:
    """A topic's papers, newest announcement day first."""

    def build() -> FeedSpec:
        page = profiles.topic_page(session, topic_id)
        if page is None:
            raise HTTPException(404, f"topic {topic_id} is not stored here")
        cards = [card for day in page.days for card in day.cards][:TOPIC_ITEMS]
        when = datetime.combine(page.sizes[-1].day, datetime.min.time(), UTC)
        title, feed = f"Paperboy topic: {page.topic.label}", f"/feeds/topic/{topic_id}.{fmt}"
        return _spec(context, title, f"/topics/{topic_id}", feed, when, cards)

    return _answer(request, context, fmt, ("topic-feed", topic_id), build)
