"""Search (``/search``) and the author and topic pages it leads to.

An arXiv identifier goes straight to its paper, an author's full name to the author page;
anything else is a hybrid search (see :mod:`search`). Redirects only ever go to a path on this
site, built from a parsed identifier or a stored author key.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Path, Query, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy.orm import Session

from app.core.arxiv_ids import InvalidArxivIdError, parse_arxiv_id
from app.core.names import author_key, collapse_whitespace
from app.web import profiles, queries
from app.web.context import ContextDep, SessionDep, WebContext
from app.web.forms import client_host
from app.web.page_views import SearchPage
from app.web.params import BadInputError, TopicId, parse_day
from app.web.search_turns import SearchBusyError, SearchRefusedError
from search.excluded_words import TooManyExcludedError, mentions, split_query
from search.query import MAX_MATCHES, Filters, Found, SearchSort, query_words, snippet

router = APIRouter(include_in_schema=False)
PER_PAGE = 20
# Matches are at most MAX_MATCHES, so no page past this one can hold any.
LAST_PAGE = MAX_MATCHES
SORT_HELP = "`relevance` (best match first, the default) or `newest` (latest announced first)"
PageNumber = Annotated[
    int, Query(ge=1, le=LAST_PAGE, description="Page of results, from 1; past the end: none")
]
SortOrder = Annotated[SearchSort, Query(description=SORT_HELP)]


def search_filters(since: str | None, until: str | None, category: str | None) -> Filters:
    """The filters of a search, or a 400 naming the one that is malformed."""
    try:
        return Filters(
            parse_day(since, "since") if since else None,
            parse_day(until, "until") if until else None,
            category or None,
        )
    except BadInputError as error:
        raise HTTPException(400, str(error)) from None


def run_search(
    context: WebContext,
    client: str,
    q: str,
    since: str | None,
    until: str | None,
    category: str | None,
) -> Found:
    """Every match of the query and filters, best first (at most ``MAX_MATCHES``), searched
    in one of the process's turns (``client``: :func:`app.web.forms.client_host`)."""
    query = collapse_whitespace(q)
    if len(query) > context.settings.search_max_query_length:
        raise HTTPException(
            400, f"the query is longer than {context.settings.search_max_query_length} characters"
        )
    filters = search_filters(since, until, category)
    try:
        asked = split_query(query)
    except TooManyExcludedError as error:
        raise HTTPException(400, str(error)) from None
    if not asked.words:
        return Found([], {})
    try:
        with context.search_turns.turn(client):
            found = context.search.search(asked.words, filters)
    except SearchRefusedError as refused:
        retry = {"Retry-After": str(refused.retry_after)}
        raise HTTPException(429, str(refused), headers=retry) from None
    except SearchBusyError as error:
        raise HTTPException(503, str(error), headers={"Retry-After": "2"}) from None
    return _without(context, found, asked.without) if asked.without else found


def _without(context: WebContext, found: Found, words: tuple[str, ...]) -> Found:
    """The matches whose title and abstract hold none of ``words``."""
    with context.sessions() as lookup:
        texts = queries.paper_texts(lookup, list(found.ids.values()))
    kept = [
        match for match in found.matches if not mentions(texts.get(found.ids[match.row], ""), words)
    ]
    return Found(kept, found.ids)


def direct_target(session: Session, query: str) -> str | None:
    """The page a query names outright: a stored paper's id or a stored author's full name."""
    try:
        parsed = parse_arxiv_id(query)
        if queries.papers(session, [parsed.base]):
            return f"/papers/{parsed.base}"
    except InvalidArxivIdError:
        pass
    key = author_key(query)
    if " " in query.strip() and key and queries.author_name(session, key) is not None:
        return f"/authors/{key}"
    return None


@router.get("/search", response_class=HTMLResponse)
def search_page(
    request: Request,
    context: ContextDep,
    q: Annotated[str, Query(max_length=1000)] = "",
    since: Annotated[str | None, Query(max_length=10)] = None,
    until: Annotated[str | None, Query(max_length=10)] = None,
    category: Annotated[str | None, Query(max_length=40)] = None,
    page: PageNumber = 1,
    sort: SortOrder = SearchSort.relevance,
) -> Response:
    # Two short read-only sessions instead of the request's: no database connection is held
    # while the search computes or waits for a slot (under load the pool would run dry, and
    # the request's end would wait for a thread held by a waiting search).
    query = collapse_whitespace(q)
    if query and len(query) <= context.settings.search_max_query_length:
        with context.sessions() as lookup:
            target = direct_target(lookup, query)
        if target is not None:
            return RedirectResponse(target, status_code=303)
    found = run_search(context, client_host(request), q, since, until, category)
    asked = {"q": query, "since": since, "until": until, "category": category, "sort": sort}
    view = search_view(context, found, asked, page, sort)
    return context.respond(request, "pages/search.html", view)


def search_view(
    context: WebContext,
    found: Found,
    asked: dict[str, str | None],
    page: int,
    sort: SearchSort,
) -> SearchPage:
    """Page ``page`` of the matches, each card with its passage, and links to its neighbours."""
    with context.sessions() as lookup:
        cards = queries.plain_cards(lookup, found.page(sort, page, PER_PAGE))
    words = query_words(asked["q"] or "")
    total = len(found.matches)
    return SearchPage(
        q=asked["q"] or "",
        since=asked["since"] or "",
        until=asked["until"] or "",
        category=asked["category"] or "",
        cards=cards,
        max_length=context.settings.search_max_query_length,
        snippets={card.paper.arxiv_id: snippet(card.paper.abstract, words) for card in cards},
        total=total,
        first=(page - 1) * PER_PAGE + 1,
        sort=sort.value,
        previous_url=page_url(asked, min(page - 1, last_page(total))) if page > 1 else None,
        next_url=page_url(asked, page + 1) if page * PER_PAGE < total else None,
        feed_query=urlencode(
            {name: value for name, value in asked.items() if value and name != "sort"}
        ),
    )


def last_page(total: int, per_page: int = PER_PAGE) -> int:
    return max(1, -(-total // per_page))


def page_url(asked: dict[str, str | None], page: int) -> str:
    """``/search`` with the same query, filters and order, on another page."""
    kept = {name: value for name, value in asked.items() if value}
    return "/search?" + urlencode({**kept, "page": page})


@router.get("/authors/{key}", response_class=HTMLResponse)
def author_page(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    key: Annotated[str, Path(max_length=200)],
) -> Response:
    page = profiles.author_page(session, key)
    if page is None:
        raise HTTPException(404, "no author with this key is stored here")
    return context.respond(request, "pages/author.html", page)


@router.get("/topics/{topic_id}", response_class=HTMLResponse)
def topic_page(
    request: Request, context: ContextDep, session: SessionDep, topic_id: TopicId
) -> Response:
    page = profiles.topic_page(session, topic_id)
    if page is None:
        raise HTTPException(404, f"topic {topic_id} is not stored here")
    return context.respond(request, "pages/topic.html", page)
