"""The trending edition at ``/`` (each paper's page is in ``routes.papers``)."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import HTMLResponse

from app.core.periods import PERIODS, Period, span
from app.core.refusals import NotFound
from app.web import queries
from app.web.caching import Rendered, cached, rendered
from app.web.context import ContextDep, SessionDep
from app.web.forms import (
    BadInputError,
    edition_key,
    key_label,
    parse_day,
    parse_period,
    stored_id,
)
from app.web.page_views import nearest_date, trending_page

router = APIRouter(include_in_schema=False)
CATEGORY = re.compile(r"[A-Za-z][A-Za-z.\-]{0,39}")
HTML = "text/html; charset=utf-8"


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
