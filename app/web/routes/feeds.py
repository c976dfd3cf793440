"""Feeds for readers: the trending editions, per category, per topic, per author, per
organization.

``/feeds/{daily,weekly,monthly}.{rss,atom,json}``, ``/feeds/category/{cat}.{...}``,
``/feeds/topic/{id}.{...}``, ``/feeds/author/{key}.{...}``; each answers with an ETag and 304,
like the API. A category no stored paper has is a 404, as a topic or author not stored is; a
stored category with no paper in today's edition is an empty feed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request, Response
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import Edition, PaperCategory
from app.core.periods import Period
from app.core.refusals import NotFound
from app.web import profiles, queries, topic_profiles
from app.web.caching import Rendered, cached, rendered
from app.web.context import ContextDep, SessionDep
from app.web.feeds import MEDIA_TYPES, RENDERERS, FeedSpec
from app.web.forms import TopicId
from app.web.routes.api import answers
from app.web.routes.organizations import organization_page
from app.web.routes.pages import CATEGORY
from app.web.view_models import Card

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
AUTHOR_ITEMS = profiles.WORKS_SHOWN
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
Build = Callable[[], FeedSpec]
# Per period: the feed's name in its path, its title and the page it mirrors.
EDITION_FEEDS: dict[Period, tuple[str, str, str]] = {
    "day": ("daily", "Paperboy: trending today", "/"),
    "week": ("weekly", "Paperboy: trending this week", "/?period=week"),
    "month": ("monthly", "Paperboy: trending this month", "/?period=month"),
}


def _latest(context: ContextDep, session: SessionDep, period: Period) -> Edition:
    edition = context.edition(session, period, None)
    if edition is None:
        raise NotFound(f"no {period} edition is published yet")
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
    return FeedSpec(
        title=title,
        description=description,
        site_url=site,
        page_path=page,
        feed_path=feed,
        updated=when,
        cards=cards,
    )


def _edition_feed(
    request: Request, context: ContextDep, session: SessionDep, fmt: Format, period: Period
) -> Response:
    """The latest edition of ``period``, in trending order."""
    edition = _latest(context, session, period)
    name, title, page = EDITION_FEEDS[period]
    feed = f"/feeds/{name}.{fmt}"

    def build() -> FeedSpec:
        cards = queries.edition_cards(session, edition)
        return _spec(context, title, page, feed, edition.published_at, cards)

    return _answer(request, context, fmt, ("feed", edition.id), build)


@router.get("/daily.{fmt}", responses=FEED_ANSWERS)
def daily(request: Request, context: ContextDep, session: SessionDep, fmt: Format) -> Response:
    """The latest daily edition."""
    return _edition_feed(request, context, session, fmt, "day")


@router.get("/weekly.{fmt}", responses=FEED_ANSWERS)
def weekly(request: Request, context: ContextDep, session: SessionDep, fmt: Format) -> Response:
    """The latest weekly edition (the ISO week so far)."""
    return _edition_feed(request, context, session, fmt, "week")


@router.get("/monthly.{fmt}", responses=FEED_ANSWERS)
def monthly(request: Request, context: ContextDep, session: SessionDep, fmt: Format) -> Response:
    """The latest monthly edition (the calendar month so far)."""
    return _edition_feed(request, context, session, fmt, "month")


def category_is_stored(session: Session, category: str) -> bool:
    """Whether any stored paper is in ``category`` (exact, as arXiv spells it)."""
    found = session.scalar(
        select(PaperCategory.arxiv_id).where(PaperCategory.category == category).limit(1)
    )
    return found is not None


@router.get("/category/{category}.{fmt}", responses=FEED_ANSWERS)
def category(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    category: Annotated[str, Path(max_length=40, pattern=f"^{CATEGORY.pattern}$")],
    fmt: Format,
) -> Response:
    """The latest daily edition's papers in one arXiv category (404: no stored paper has it)."""
    # Asked before the edition is read: a request that fails after reading it rolls back its
    # session, which expires the Edition the memo keeps for every other request.
    if not category_is_stored(session, category):
        raise NotFound(f"no stored paper is in category {category}")
    edition = _latest(context, session, "day")

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
        page = topic_profiles.topic_page(session, topic_id)
        if page is None:
            raise NotFound(f"topic {topic_id} is not stored here")
        cards = [card for day in page.days for card in day.cards][:TOPIC_ITEMS]
        when = datetime.combine(page.sizes[-1].day, datetime.min.time(), UTC)
        title, feed = f"Paperboy topic: {page.topic.label}", f"/feeds/topic/{topic_id}.{fmt}"
        return _spec(context, title, f"/topics/{topic_id}", feed, when, cards)

    return _answer(request, context, fmt, ("topic-feed", topic_id), build)


@router.get("/author/{key}.{fmt}", responses=FEED_ANSWERS)
def author(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    key: Annotated[str, Path(max_length=200, description="An author key, as in /authors/{key}")],
    fmt: Format,
) -> Response:
    """An author key's papers, newest announcement first (built each time: author keys are
    many, and must not push the editions out of the memo)."""
    page = profiles.author_page(session, key)
    if page is None:
        raise NotFound(f"no author with key {key[:80]!r} is stored here")
    when = _newest_day(page.works)
    title, feed = f"Paperboy author: {page.name}", f"/feeds/author/{key}.{fmt}"
    spec = _spec(context, title, f"/authors/{key}", feed, when, page.works[:AUTHOR_ITEMS])
    return cached(request, RENDERERS[fmt](spec), MEDIA_TYPES[fmt], when)


@router.get("/organization/{slug}.{fmt}", responses=FEED_ANSWERS)
def organization(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    slug: Annotated[str, Path(max_length=200, description="Its name on Hugging Face")],
    fmt: Format,
) -> Response:
    """The papers submitted to Hugging Face's daily page under an organization, newest first
    (built each time, as an author's)."""
    page = organization_page(session, slug)
    if page is None:
        raise NotFound(f"no paper of organization {slug[:80]!r} is stored here")
    when = _newest_day(page.papers)
    title, feed = f"Paperboy organization: {page.name}", f"/feeds/organization/{slug}.{fmt}"
    spec = _spec(context, title, f"/organizations/{slug}", feed, when, page.papers)
    return cached(request, RENDERERS[fmt](spec), MEDIA_TYPES[fmt], when)


def _newest_day(cards: list[Card]) -> datetime:
    """The newest announcement day of ``cards``, as a feed's updated time (the epoch if none)."""
    days = [card.paper.announced_on for card in cards if card.paper.announced_on]
    return datetime.combine(max(days), datetime.min.time(), UTC) if days else EPOCH
