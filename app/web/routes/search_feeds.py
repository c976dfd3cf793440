"""A search as a feed: ``/search/feed.{rss,atom,json}`` with the search page's own query.

Any search a reader can run (words, ``-word`` exclusions, date and category filters) can be
followed in a feed reader at a stable public address: the newest matching papers first, as
many as the search finds past its relevance cut-off (none: an empty, valid feed). Each fetch
is a search, so it waits its turn and counts against the client's search limits like the
page; the answer carries an ETag and may be kept for :data:`KEEP_SECONDS`.
"""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Annotated, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request, Response

from app.core.names import collapse_whitespace
from app.web import queries
from app.web.caching import cached
from app.web.context import ContextDep
from app.web.feeds import MEDIA_TYPES, RENDERERS, FeedSpec
from app.web.forms import client_host
from app.web.routes.api import answers
from app.web.routes.feeds import FEED_CONTENT
from app.web.routes.search import run_search
from search.query import SearchSort

router = APIRouter(prefix="/search", tags=["feeds"], default_response_class=Response)
Format = Literal["rss", "atom", "json"]
# The search's newest matches a feed holds (a search finds at most 200).
FEED_ITEMS = 50
# New papers come once a day: a feed reader asking more often than this learns nothing.
KEEP_SECONDS = 900
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Answers of a feed, and a search's 429 when the client is past its search limits.
SEARCH_FEED_ANSWERS = answers(304, 400, 429)
SEARCH_FEED_ANSWERS[200] = SEARCH_FEED_ANSWERS[200] | {
    "description": "The feed, in the format `fmt` names",
    "content": FEED_CONTENT,
}


@router.get("/feed.{fmt}", responses=SEARCH_FEED_ANSWERS)
def search_feed(
    request: Request,
    context: ContextDep,
    fmt: Format,
    q: Annotated[str, Query(max_length=1000, description="The search's words")] = "",
    since: Annotated[str | None, Query(max_length=10, description="YYYY-MM-DD")] = None,
    until: Annotated[str | None, Query(max_length=10, description="YYYY-MM-DD")] = None,
    category: Annotated[str | None, Query(max_length=40, description="e.g. cs.LG")] = None,
) -> Response:
    """The newest papers matching a search (``-word`` leaves out papers holding the word)."""
    found = run_search(context, client_host(request), q, since, until, category)
    with context.sessions() as lookup:
        cards = queries.plain_cards(lookup, found.page(SearchSort.newest, 1, FEED_ITEMS))
    asked = {"q": collapse_whitespace(q), "since": since, "until": until, "category": category}
    kept = urlencode({name: value for name, value in asked.items() if value})
    days = [card.paper.announced_on for card in cards if card.paper.announced_on]
    spec = FeedSpec(
        title=f"Paperboy search: {_described(asked)}",
        description="The newest arXiv papers matching a search on Paperboy.",
        site_url=context.settings.public_base_url.rstrip("/"),
        page_path=f"/search?{kept}&sort=newest" if kept else "/search?sort=newest",
        feed_path=f"/search/feed.{fmt}" + (f"?{kept}" if kept else ""),
        updated=datetime.combine(max(days), time(0), UTC) if days else EPOCH,
        cards=cards,
    )
    control = f"public, max-age={KEEP_SECONDS}"
    return cached(request, RENDERERS[fmt](spec), MEDIA_TYPES[fmt], spec.updated, control)


def _described(asked: dict[str, str | None]) -> str:
    words = f"“{asked['q']}”" if asked["q"] else "(no words)"
    span = " ".join(
        part
        for part in (
            f"in {asked['category']}" if asked["category"] else "",
            f"from {asked['since']}" if asked["since"] else "",
            f"to {asked['until']}" if asked["until"] else "",
        )
        if part
    )
    return f"{words} {span}".strip()
