"""Search (``/search``): the results page, and the search its feeds and the API run too.

An arXiv identifier goes straight to its paper, an author's full name to the author page;
anything else is a hybrid search (see :mod:`search`). Redirects only ever go to a path on this
site, built from a parsed identifier or a stored author key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy.orm import Session

from app.core.arxiv_ids import InvalidArxivIdError, parse_arxiv_id
from app.core.names import author_key, collapse_whitespace
from app.core.refusals import BadInput
from app.services.reading import followed_search
from app.services.search import (
    MAX_MATCHES,
    Filters,
    Found,
    SearchSort,
    mentions,
    query_words,
    snippet,
    split_query,
)
from app.web import queries
from app.web.context import ContextDep, WebContext
from app.web.forms import client_host, parse_day
from app.web.page_views import SearchPage
from app.web.routes.reader import PRIVATE, signed_in_reading

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
    """The filters of a search; a malformed one is refused (:class:`BadInputError`)."""
    return Filters(
        parse_day(since, "since") if since else None,
        parse_day(until, "until") if until else None,
        category or None,
    )


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
    longest = context.settings.search_max_query_length
    if len(query) > longest:
        raise BadInput(f"the query is longer than {longest} characters")
    filters = search_filters(since, until, category)
    asked = split_query(query)
    if not asked.words:
        return Found([], {})
    with context.search_turns.turn(client):
        found = context.search.search(asked.words, filters)
    return _without(context, found, asked.without) if asked.without else found


def _without(context: WebContext, found: Found, words: tuple[str, ...]) -> Found:
    """The matches whose title and abstract hold none of ``words``."""
    with context.sessions() as lookup:
        texts = queries.paper_texts(lookup, list(found.ids.values()))
    kept = [
        match for match in found.matches if not mentions(texts.get(found.ids[match.row], ""), words)
    ]
    return Found(kept, found.ids, found.not_all_matched)


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
    view, headers = search_view(context, found, asked, page, sort), None
    if view.q:
        with context.sessions() as lookup:
            view, headers = as_reader_sees_it(request, context, lookup, view)
    return context.respond(request, "pages/search.html", view, headers=headers)


def as_reader_sees_it(
    request: Request, context: WebContext, session: Session, view: SearchPage
) -> tuple[SearchPage, Mapping[str, str] | None]:
    """The page and its headers as the signed-in reader sees it: whether they follow this
    search (a section of their digest), so its button shows the state it leaves."""
    email_key = signed_in_reading(request, context, session)
    if email_key is None:
        return view, None
    kept = followed_search(session, email_key, view.q, view.category)
    return replace(view, signed_in=True, followed_search=kept), PRIVATE


def search_view(
    context: WebContext,
    found: Found,
    asked: dict[str, str | None],
    page: int,
    sort: SearchSort,
) -> SearchPage:
    """Page ``page`` of the matches, each card with its passage, and links to its neighbours."""
    with context.sessions() as lookup:
        plain = queries.plain_cards(lookup, found.page(sort, page, PER_PAGE))
        cards = queries.with_day_chances(lookup, plain)
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
        not_all_matched=found.not_all_matched,
    )


def last_page(total: int, per_page: int = PER_PAGE) -> int:
    return max(1, -(-total // per_page))


def page_url(asked: dict[str, str | None], page: int) -> str:
    """``/search`` with the same query, filters and order, on another page."""
    kept = {name: value for name, value in asked.items() if value}
    return "/search?" + urlencode({**kept, "page": page})
