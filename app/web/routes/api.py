"""The JSON API: daily papers in Hugging Face's shape, papers, topics and authors.

Every route declares its answer's model (``app.web.api_models``), so ``/api/openapi.json``
documents each schema, and the errors it really gives (``ERRORS``). Published editions never
change, so every answer carries an ETag (and Last-Modified for editions) and a repeated request
with ``If-None-Match`` gets 304.
"""

from __future__ import annotations

from importlib.metadata import version as package_version
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import RedirectResponse
from sqlalchemy.orm import Session

from app.core.arxiv_ids import MAX_VERSION_DIGITS, parse_arxiv_id
from app.core.models import Edition
from app.core.reads import latest_edition
from app.core.refusals import NotFound
from app.services.claims import find_person, is_hidden
from app.services.search import Filters, SearchSort
from app.web import api_models as api
from app.web import profiles, queries, topic_profiles
from app.web.api_shape import (
    DailySort,
    daily_item,
    page_of,
    paper_detail,
    search_result,
    sort_cards,
    submitted_by,
)
from app.web.caching import REVALIDATED, Rendered, cached, cached_json, model_bytes, rendered
from app.web.context import ContextDep, SessionDep
from app.web.forms import (
    MAX_ID,
    TopicId,
    client_host,
    edition_key,
    key_label,
    require_plain_id,
)
from app.web.routes.search import (
    PageNumber,
    SortOrder,
    last_page,
    run_search,
    search_filters,
)
from app.web.view_models import Card, Signals

router = APIRouter(prefix="/api", tags=["api"])
VERSION = package_version("paperboy")
# arXiv's two identifier schemes, with an optional version and "arXiv:" prefix (HF's paths).
# The version's bound is the parser's, so a fuzzer reading the schema sends longer ones as
# invalid input, expecting them refused.
ARXIV_ID_PATTERN = (
    r"^(?:[aA][rR][xX][iI][vV]:)?(?:[0-9]{2}(?:0[1-9]|1[0-2])\.[0-9]{4,5}"
    r"|[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z]+(?:-[A-Za-z]+)?)?/[0-9]{7})"
    rf"(?:v[0-9]{{1,{MAX_VERSION_DIGITS}}})?$"
)
ArxivIdPath = Annotated[
    str,
    Path(
        description="An arXiv identifier: 2512.14133, 2512.14133v2, hep-th/9901001",
        # Documented, not enforced here: parse_arxiv_id says in words what is wrong.
        json_schema_extra={"pattern": ARXIV_ID_PATTERN},
    ),
]
# Empty counts as absent (``?week=``), as the parsers treat it.
DAY_PATTERN = r"^([0-9]{4}-[0-9]{2}-[0-9]{2})?$"
WEEK_PATTERN = r"^([0-9]{4}-W[0-9]{2})?$"
MONTH_PATTERN = r"^([0-9]{4}-[0-9]{2})?$"
ONE_OF = " At most one of `date`, `week` and `month` may be given; empty is absent."


def _edition(description: str, pattern: str) -> Any:
    # Documented, not enforced by FastAPI: app.web.forms says in words what is wrong.
    return Query(description=description + ONE_OF, json_schema_extra={"pattern": pattern})


def _day_query(description: str) -> Any:
    return Query(
        description=description + "; empty is absent", json_schema_extra={"pattern": DAY_PATTERN}
    )


SORT_HELP = (
    "Absent: Hugging Face's order (most upvotes first, ties in trending order); "
    "`trending`: the edition's order; `publishedAt`: newest first"
)
NOT_MODIFIED = "Not modified: the `If-None-Match` ETag (or `If-Modified-Since`) still holds."


def _header(description: str) -> dict[str, Any]:
    return {"description": description, "schema": {"type": "string"}}


CACHE_HEADERS = {
    "ETag": _header("A hash of the body: send it back in If-None-Match to get 304"),
    "Cache-Control": _header("public, max-age=300"),
}
RETRY_AFTER = {"Retry-After": _header("Seconds to wait before the next request")}


def _error(description: str, **extra: Any) -> dict[str, Any]:
    return {"description": description, "model": api.ErrorBody, **extra}


ANSWERS: dict[int, dict[str, Any]] = {
    200: {"description": "The answer", "headers": CACHE_HEADERS},
    301: {
        "description": "Moved for good: a later split gave this person's papers to another",
        "headers": {"Location": {"description": "Where it is now", "schema": {"type": "string"}}},
    },
    304: {"description": NOT_MODIFIED, "headers": CACHE_HEADERS},
    400: _error("A parameter is invalid; `error.message` says which and why."),
    404: _error("Nothing is stored under that key."),
    429: _error("Rate limit exceeded; retry after `Retry-After` seconds.", headers=RETRY_AFTER),
    503: _error(
        "The database is not migrated, or search is not ready; `error.message` says.",
        headers=RETRY_AFTER,
    ),
}


def answers(*statuses: int, rate_limited: bool = True) -> dict[int | str, dict[str, Any]]:
    """The documented answers besides 200: these, 503 which any route may give, and 429 on
    the rate-limited ``/api/`` paths."""
    given = {200, *statuses, 503, *((429,) if rate_limited else ())}
    return {status: ANSWERS[status] for status in sorted(given)}


@router.get("/daily_papers", response_model=list[api.DailyPaper], responses=answers(304, 400, 404))
def daily_papers(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    date: Annotated[str | None, _edition("Day edition, YYYY-MM-DD", DAY_PATTERN)] = None,
    week: Annotated[str | None, _edition("Week edition (ISO), YYYY-Www", WEEK_PATTERN)] = None,
    month: Annotated[str | None, _edition("Month edition, YYYY-MM", MONTH_PATTERN)] = None,
    submitter: Annotated[
        str | None,
        Query(description="Only papers this Hugging Face user submitted", max_length=100),
    ] = None,
    sort: Annotated[DailySort | None, Query(description=SORT_HELP)] = None,
    p: Annotated[int, Query(ge=0, le=10_000, description="Page, from 0")] = 0,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> Response:
    """The papers of an edition (the latest day edition by default), HF's item shape."""
    edition = _edition_asked(context, session, date, week, month)

    def ordered() -> list[Card]:
        return sort_cards(queries.edition_cards(session, edition), sort)

    def build() -> Rendered:
        cards = submitted_by(
            context.memo.get(("daily_cards", edition.id, sort), ordered), submitter
        )
        site = context.settings.public_base_url
        return rendered(model_bytes([daily_item(c, site) for c in page_of(cards, p, limit)]))

    # A submitter's page is built each time: caller-chosen names must not fill the memo.
    body = (
        build()
        if submitter
        else context.memo.get(("daily_papers", edition.id, sort, p, limit), build)
    )
    # No Last-Modified: the body carries upvotes and votes that change after publication.
    return cached(request, body, "application/json")


def _edition_asked(
    context: ContextDep,
    session: SessionDep,
    date_: str | None,
    week: str | None,
    month: str | None,
) -> Edition:
    """The edition ``?date=|week=|month=`` names (the latest day's when none): 400 when the
    parameters cannot be read, 404 when nothing is published under them."""
    period, key = edition_key(date_, week, month)
    edition = context.edition(session, period, key)
    if edition is not None:
        return edition
    if key is None:
        raise NotFound("no edition is published")
    raise NotFound(f"no {period} edition for {key_label(period, key)}")


@router.get("/version", response_model=api.VersionInfo, responses=answers(304))
def version(request: Request) -> Response:
    """Which Paperboy answers (the cheapest endpoint: no database)."""
    return cached_json(request, api.VersionInfo(name="paperboy", version=VERSION))


TOTAL_HEADERS = {
    "X-Total-Count": _header("How many papers match, on every page (at most 200)"),
    "Link": _header('The previous and next pages, when there are: `<url>; rel="next"`'),
}
PapersPage = Annotated[int, Query(ge=1, le=MAX_ID, description="Which 100 of the papers")]
PAGED_HEADERS = {
    "X-Total-Count": _header("How many papers they have, on every page"),
    "Link": TOTAL_HEADERS["Link"],
}


@router.get(
    "/papers/search",
    response_model=list[api.SearchResult],
    responses={
        **answers(304, 400),
        200: {"description": "The answer", "headers": {**CACHE_HEADERS, **TOTAL_HEADERS}},
    },
)
def search_papers(
    request: Request,
    context: ContextDep,
    q: Annotated[str | None, Query(min_length=1, max_length=1000)] = None,
    since: Annotated[str | None, _day_query("Announced on or after, YYYY-MM-DD")] = None,
    until: Annotated[str | None, _day_query("Announced on or before, YYYY-MM-DD")] = None,
    category: Annotated[str | None, Query(max_length=40, description="e.g. cs.LG")] = None,
    limit: Annotated[int, Query(ge=1, le=100, description="Results per page")] = 20,
    page: PageNumber = 1,
    sort: SortOrder = SearchSort.relevance,
) -> Response:
    """Hybrid (keyword and semantic) search over every stored paper, best match first.

    Only papers that match are answered: none when nothing does. ``X-Total-Count`` says how
    many match in all; ``page`` and ``limit`` walk through them. Without ``q`` (as
    ``huggingface_hub``'s ``list_papers()`` asks) the newest day edition's papers are
    answered in trending order, in ``category`` if given."""
    offset = (page - 1) * limit
    if q is None:
        filters = search_filters(since, until, category)
        with context.sessions() as lookup:
            ids = _newest_day(lookup, filters)
            cards = queries.plain_cards(lookup, ids[offset : offset + limit])
        total = len(ids)
    else:
        found = run_search(context, client_host(request), q, since, until, category)
        with context.sessions() as lookup:  # short: see the search page
            cards = queries.plain_cards(lookup, found.page(sort, page, limit))
        total = len(found.matches)
    site = context.settings.public_base_url
    body = [search_result(c, site).model_copy(update={"rank": offset + c.rank}) for c in cards]
    links = _page_links(context.settings.public_base_url, request, page, limit, total)
    response = cached_json(request, body)
    response.headers["X-Total-Count"] = str(total)
    if links:
        response.headers["Link"] = links
    return response


def _newest_day(session: Session, filters: Filters) -> list[str]:
    edition = latest_edition(session, "day", None, with_items=True)
    if edition is None:
        return []
    day = edition.edition_date
    if not (filters.since or day) <= day <= (filters.until or day):
        return []
    ids = [item.arxiv_id for item in edition.items]
    if filters.category is None:
        return ids
    stored = queries.papers(session, ids)
    return [i for i in ids if i in stored and filters.category in stored[i].categories]


def _page_links(site: str, request: Request, page: int, limit: int, total: int) -> str:
    """RFC 8288 links to the neighbouring pages that hold matches, from the public base URL:
    the answer is cached publicly, so nothing in it may come from the request's Host."""
    here = f"{site.rstrip('/')}{request.url.path}"

    def at(number: int) -> str:
        return f"{here}?{request.url.include_query_params(page=number).query}"

    links = []
    if page > 1 and total:
        links.append(f'<{at(min(page - 1, last_page(total, limit)))}>; rel="prev"')
    if page * limit < total:
        links.append(f'<{at(page + 1)}>; rel="next"')
    return ", ".join(links)


@router.get(
    "/papers/{arxiv_id:path}", response_model=api.PaperDetail, responses=answers(304, 400, 404)
)
def paper(
    request: Request, context: ContextDep, session: SessionDep, arxiv_id: ArxivIdPath
) -> Response:
    """One paper, with its topic, community signals and its places in editions."""
    parsed = parse_arxiv_id(arxiv_id)
    found = queries.papers(session, [parsed.base]).get(parsed.base)
    if found is None:
        raise NotFound(f"paper {parsed.base} is not stored here")
    signals = queries.signals(session, [found.arxiv_id]).get(found.arxiv_id, Signals())
    topic = queries.paper_topic(session, found.arxiv_id)
    places = queries.appearances(session, found.arxiv_id)
    site = context.settings.public_base_url
    return cached_json(request, paper_detail(found, signals, topic, places, site))


@router.get("/topics", response_model=list[api.TopicSummary], responses=answers(304))
def topics(request: Request, session: SessionDep) -> Response:
    """Every topic with its latest label, size and trend."""
    return cached_json(request, topic_profiles.topics_json(session))


@router.get("/topics/{topic_id}", response_model=api.TopicProfile, responses=answers(304, 400, 404))
def topic(request: Request, session: SessionDep, topic_id: TopicId) -> Response:
    """One topic: label, key phrases, size per day, papers by day, related topics."""
    body = topic_profiles.topic_json(session, topic_id)
    if body is None:
        raise NotFound(f"topic {topic_id} is not stored here")
    return cached_json(request, body)


@router.get(
    "/people/{person_id}",
    response_model=api.AuthorProfile,
    responses=answers(301, 304, 400, 404) | {200: {"headers": PAGED_HEADERS}},
)
def person(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    person_id: Annotated[int, Path(ge=1, le=MAX_ID)],
    page: PapersPage = 1,
) -> Response:
    """One person of a name (or a group author): the name's profile narrowed to their papers,
    100 a page. A person a later split left without papers answers 301 to the person now
    holding them; a hidden one, 404."""
    require_plain_id(request, "person_id")
    found = find_person(session, person_id)
    if found.moved_to is not None:
        return RedirectResponse(f"/api/people/{found.moved_to}", status_code=301)
    shown = found.person
    body = None
    if shown is not None and not is_hidden(session, shown):
        body = profiles.author_json(session, shown.author_key, shown.id, page)
    if body is None:
        raise NotFound(f"no person {person_id} is shown here")
    response = cached(request, model_bytes(body), "application/json", cache_control=REVALIDATED)
    return _paged(request, context, response, page, body.paperCount)


def _paged(
    request: Request, context: ContextDep, response: Response, page: int, total: int
) -> Response:
    """``response`` with the total of papers and links to the neighbouring pages of them."""
    site = context.settings.public_base_url
    links = _page_links(site, request, page, profiles.WORKS_SHOWN, total)
    response.headers["X-Total-Count"] = str(total)
    if links:
        response.headers["Link"] = links
    return response


@router.get(
    "/authors/{key}",
    response_model=api.AuthorProfile,
    responses=answers(304, 400, 404) | {200: {"headers": PAGED_HEADERS}},
)
def author(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    key: Annotated[str, Path(max_length=200)],
    page: PapersPage = 1,
) -> Response:
    """An author key's works (newest first, 100 a page), topics and close collaborators."""
    body = profiles.author_json(session, key, None, page)
    if body is None:
        raise NotFound(f"no author with key {key[:80]!r} is stored here")
    return _paged(request, context, cached_json(request, body), page, body.paperCount)
