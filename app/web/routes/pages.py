"""Server-rendered pages: the trending edition at ``/`` and each paper at ``/papers/{id}``."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from app.core.periods import PERIODS, Period, span
from app.core.refusals import NotFound
from app.web import queries, reader_views
from app.web.caching import Rendered, cached, rendered
from app.web.context import ContextDep, SessionDep
from app.web.page_views import PaperPage, nearest_date, trending_page
from app.web.params import (
    BadInputError,
    edition_key,
    key_label,
    paper_path_id,
    parse_day,
    parse_period,
    stored_id,
)
from app.web.routes.voting import SESSION_COOKIE
from app.web.view_models import Signals, author_links, card

router = APIRouter(include_in_schema=False)
CATEGORY = re.compile(r"[A-Za-z][A-Za-z.\-]{0,39}")
SIMILAR = 6
HTML = "text/html; charset=utf-8"
# A page showing what one reader did is theirs alone.
PRIVATE = {"Cache-Control": "private, no-store"}


def category_param(value: str | None) -> str | None:
    if value is not None and value != "" and not CATEGORY.fullmatch(value):
        raise BadInputError(f"category must look like cs.LG, got {value[:40]!r}")
    return value or None


def topic_param(value: str | None) -> int | None:
    """A topic filter's id; empty (the form's "All topics") is none."""
    if value is None or value == "":
        return None
    topic = stored_id(value)
    if topic is None:
        raise BadInputError(f"topic must be a topic's number, got {value[:40]!r}")
    return topic


def page_edition(
    period: str, day: str | None, week: str | None, month: str | None
) -> tuple[Period, date | None]:
    """The edition ``/`` shows: ``?week=YYYY-Www`` or ``?month=YYYY-MM`` names its own (and
    its period); ``?date=`` names the edition of ``?period=`` holding that day; none, the
    period's newest."""
    if week or month:
        return edition_key(day, week, month)
    chosen = parse_period(period)
    return chosen, span(chosen, parse_day(day)).key if day else None


@router.get("/", response_class=HTMLResponse)
def trending(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    period: str = "day",
    date: Annotated[str | None, Query(max_length=10)] = None,
    week: Annotated[str | None, Query(max_length=8)] = None,
    month: Annotated[str | None, Query(max_length=7)] = None,
    category: Annotated[str | None, Query(max_length=40)] = None,
    topic: Annotated[str | None, Query(max_length=12)] = None,
    page: Annotated[int, Query(ge=1, le=1000, description="Page of the edition, from 1")] = 1,
) -> Response:
    chosen, key = page_edition(period, date, week, month)
    wanted = category_param(category)
    topic_id = topic_param(topic)
    edition = context.edition(session, chosen, key)
    missed = None
    if key is not None and edition is None:
        # A day without an edition (a weekend, a holiday): the nearest one, saying so.
        nearest = nearest_date(queries.edition_dates(session, chosen), key)
        if nearest is None:
            raise NotFound(f"no {chosen} edition for {key_label(chosen, key)}")
        edition, missed = context.edition(session, chosen, nearest), key

    def build() -> Rendered:
        cards = [] if edition is None else queries.edition_cards(session, edition)
        dates = {name: queries.edition_dates(session, name) for name in PERIODS}
        view = trending_page(chosen, edition, cards, dates, wanted, topic_id, missed, page)
        return rendered(context.render("pages/trending.html", view))

    edition_id = None if edition is None else edition.id
    memo_key = ("trending", chosen, edition_id, wanted, topic_id, missed, page)
    body = context.memo.get(memo_key, build)
    return cached(request, body, HTML, None if edition is None else edition.published_at)


@router.get("/papers/{arxiv_id:path}", response_class=HTMLResponse)
def paper_page(
    request: Request, arxiv_id: str, context: ContextDep, session: SessionDep
) -> Response:
    parsed = paper_path_id(arxiv_id)
    if parsed.base != arxiv_id:
        # A versioned or prefixed spelling: one canonical page (a path on this site only).
        return RedirectResponse(f"/papers/{parsed.base}", status_code=308)
    found = queries.papers(session, [parsed.base]).get(parsed.base)
    if found is None:
        raise NotFound(f"paper {parsed.base} is not stored here")
    signals = queries.signals(session, [found.arxiv_id]).get(found.arxiv_id, Signals())
    topic = queries.paper_topic(session, found.arxiv_id)
    shown, headers = card(0, found, topic, None, signals), None
    # One paper, one reader: the page shows what they did with it, even without the script.
    email_key = reader_views.signed_in(context, session, request.cookies.get(SESSION_COOKIE, ""))
    if email_key is not None:
        shown, headers = reader_views.marked(session, email_key, shown), PRIVATE
    page = PaperPage(
        card=shown,
        authors=author_links(found.authors),
        similar=queries.plain_cards(session, context.search.similar(found.arxiv_id, SIMILAR)),
        appearances=queries.appearances(session, found.arxiv_id),
    )
    return context.respond(request, "pages/paper.html", page, headers=headers)
