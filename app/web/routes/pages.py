"""Server-rendered pages: the trending edition at ``/`` and each paper at ``/papers/{id}``."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy.orm import Session

from app.core.arxiv_ids import InvalidArxivIdError, parse_arxiv_id
from app.core.models import Edition
from app.core.periods import Period, span
from app.web import queries
from app.web.caching import Rendered, cached, rendered
from app.web.context import ContextDep, SessionDep
from app.web.params import MAX_ID, BadInputError, key_label, parse_day, parse_period
from app.web.views import Card, Signals, author_links, card, parse_components

router = APIRouter(include_in_schema=False)
CATEGORY = re.compile(r"[A-Za-z][A-Za-z.\-]{0,39}")
SIMILAR = 6
HTML = "text/html; charset=utf-8"


def bad_request(error: BadInputError) -> HTTPException:
    return HTTPException(400, str(error))


def category_param(value: str | None) -> str | None:
    if value is not None and value != "" and not CATEGORY.fullmatch(value):
        raise BadInputError(f"category must look like cs.LG, got {value[:40]!r}")
    return value or None


@router.get("/", response_class=HTMLResponse)
def trending(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    period: str = "day",
    date: Annotated[str | None, Query(max_length=10)] = None,
    category: Annotated[str | None, Query(max_length=40)] = None,
    topic: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
) -> Response:
    try:
        chosen, wanted = parse_period(period), category_param(category)
        key = span(chosen, parse_day(date)).key if date else None
    except BadInputError as error:
        raise bad_request(error) from None
    edition = context.edition(session, chosen, key)
    if key is not None and edition is None:
        raise HTTPException(404, f"no {chosen} edition for {key_label(chosen, key)}")

    def build() -> Rendered:
        page = trending_page(session, chosen, edition)
        page.update(
            cards=filter_cards(page["all_cards"], wanted, topic), category=wanted, topic=topic
        )
        return rendered(context.render("pages/trending.html", page))

    memo_key = ("trending", chosen, None if edition is None else edition.id, wanted, topic)
    body = context.memo.get(memo_key, build)
    return cached(request, body, HTML, None if edition is None else edition.published_at)


def trending_page(session: Session, period: Period, edition: Edition | None) -> dict[str, Any]:
    dates = queries.edition_dates(session, period)
    chosen = None if edition is None else edition.edition_date
    cards = [] if edition is None else queries.edition_cards(session, edition)
    return {
        "period": period,
        "key": chosen,
        "label": None if chosen is None else key_label(period, chosen),
        "edition": edition,
        "all_cards": cards,
        "previous": max((d for d in dates if chosen and d < chosen), default=None),
        "next": min((d for d in dates if chosen and d > chosen), default=None),
        "dates": dates,
    }


def filter_cards(cards: list[Card], category: str | None, topic: int | None) -> list[Card]:
    return [
        c
        for c in cards
        if (category is None or category in c.paper.categories)
        and (topic is None or (c.topic is not None and c.topic.id == topic))
    ]


@router.get("/papers/{arxiv_id:path}", response_class=HTMLResponse)
def paper_page(
    request: Request, arxiv_id: str, context: ContextDep, session: SessionDep
) -> Response:
    try:
        parsed = parse_arxiv_id(arxiv_id)
    except InvalidArxivIdError:
        raise HTTPException(404, "not an arXiv identifier") from None
    if parsed.base != arxiv_id:
        # A versioned or prefixed spelling: one canonical page (a path on this site only).
        return RedirectResponse(f"/papers/{parsed.base}", status_code=308)
    found = queries.papers(session, [parsed.base]).get(parsed.base)
    if found is None:
        raise HTTPException(404, f"paper {parsed.base} is not stored here")
    signals = queries.signals(session, [found.arxiv_id]).get(found.arxiv_id)
    similar = context.search.similar(found.arxiv_id, SIMILAR)
    page = {
        "card": card(
            0, found, queries.paper_topic(session, found.arxiv_id), None, signals or Signals()
        ),
        "authors": author_links(found.authors),
        "similar": queries.plain_cards(session, similar),
        "appearances": [
            (edition, item, key_label(_period(edition.period), edition.edition_date))
            for edition, item in queries.appearances(session, found.arxiv_id)
        ],
        "components": parse_components,
    }
    return context.templates.TemplateResponse(request, "pages/paper.html", page)


def _period(name: str) -> Period:
    return parse_period(name)
