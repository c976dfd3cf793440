"""The signed-in reader's library under ``/reading-list``: the reading list and its named
lists, and the exports of a list as BibTeX, RIS, CSL-JSON and JSON. A paper's own buttons
(file, read, note, "not interested") are with its page, in :mod:`app.web.routes.papers`.

Every button is a plain form POST answered 303 back to the page (JSON to a script), checked
and run as :mod:`app.web.routes.reader`'s buttons are; what cannot be kept is a 400 saying
why, a list that is not the reader's a 404.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.services import library
from app.web import reader_views
from app.web.citations import Cited, bibliography, csl_json, ris
from app.web.context import ContextDep, SessionDep, WebContext
from app.web.forms import MAX_ID, read_form
from app.web.routes.reader import PRIVATE, post_action, signed_in_reading, to_sign_in

router = APIRouter(include_in_schema=False)
# Ids past the database's integer range are refused before a query PostgreSQL would refuse.
ListId = Annotated[int, Path(ge=1, le=MAX_ID)]
ShownList = Annotated[
    int | None, Query(alias="list", ge=1, le=MAX_ID, description="One of the reader's lists")
]
READING_LIST = "/reading-list"


def _reading_list(
    request: Request, context: WebContext, session: Session, list_id: int | None
) -> reader_views.ReadingList | None:
    email_key = signed_in_reading(request, context, session)
    if email_key is None:
        return None
    return reader_views.reading_list(session, email_key, list_id)


@router.get(READING_LIST, response_class=HTMLResponse)
def reading_list(
    request: Request, context: ContextDep, session: SessionDep, list_id: ShownList = None
) -> Response:
    found = _reading_list(request, context, session, list_id)
    if found is None:
        return RedirectResponse("/for-you", status_code=303)
    return context.respond(request, "pages/reading_list.html", found, headers=PRIVATE)


def _export(
    request: Request,
    context: WebContext,
    session: Session,
    list_id: int | None,
    write: Callable[[reader_views.ReadingList], tuple[str, str, str]],
) -> Response:
    """The list shown as a download: ``write`` gives its body, media type and file suffix."""
    found = _reading_list(request, context, session, list_id)
    if found is None:
        return to_sign_in(request)
    body, media_type, suffix = write(found)
    name = "reading-list" if list_id is None else f"reading-list-{list_id}"
    headers = PRIVATE | {"Content-Disposition": f'attachment; filename="{name}.{suffix}"'}
    return Response(body, media_type=media_type, headers=headers)


def _cited(found: reader_views.ReadingList) -> list[Cited]:
    return [Cited(card.paper, card.library.note if card.library else None) for card in found.cards]


@router.get(f"{READING_LIST}.bib")
def reading_list_bibtex(
    request: Request, context: ContextDep, session: SessionDep, list_id: ShownList = None
) -> Response:
    def write(found: reader_views.ReadingList) -> tuple[str, str, str]:
        body = bibliography(card.paper for card in found.cards)
        return body, "application/x-bibtex; charset=utf-8", "bib"

    return _export(request, context, session, list_id, write)


@router.get(f"{READING_LIST}.ris")
def reading_list_ris(
    request: Request, context: ContextDep, session: SessionDep, list_id: ShownList = None
) -> Response:
    def write(found: reader_views.ReadingList) -> tuple[str, str, str]:
        return ris(_cited(found)), "application/x-research-info-systems; charset=utf-8", "ris"

    return _export(request, context, session, list_id, write)


@router.get(f"{READING_LIST}.csl.json")
def reading_list_csl(
    request: Request, context: ContextDep, session: SessionDep, list_id: ShownList = None
) -> Response:
    def write(found: reader_views.ReadingList) -> tuple[str, str, str]:
        return csl_json(_cited(found)), "application/vnd.citationstyles.csl+json", "csl.json"

    return _export(request, context, session, list_id, write)


@router.get(f"{READING_LIST}.json")
def reading_list_json(
    request: Request, context: ContextDep, session: SessionDep, list_id: ShownList = None
) -> Response:
    def write(found: reader_views.ReadingList) -> tuple[str, str, str]:
        papers = [_plain_paper(context, card) for card in found.cards]
        body = {"list": found.shown_name, "reading_list": papers}
        return json.dumps(body, ensure_ascii=False, indent=1), "application/json", "json"

    return _export(request, context, session, list_id, write)


def _plain_paper(context: WebContext, card: reader_views.ReaderCard) -> dict[str, object]:
    paper, filed = card.paper, card.library
    site = context.settings.public_base_url.rstrip("/")
    return {
        "arxiv_id": paper.arxiv_id,
        "title": paper.title,
        "authors": list(paper.authors),
        "categories": list(paper.categories),
        "announced_on": paper.announced_on.isoformat() if paper.announced_on else None,
        "url": f"{site}/papers/{paper.arxiv_id}",
        "thumb": card.thumb,
        "read": bool(filed and filed.read),
        "note": filed.note if filed else "",
    }


@router.post(f"{READING_LIST}/lists")
async def create_list(request: Request, context: ContextDep) -> Response:
    name = (await read_form(request)).get("name", "")
    act = partial(library.create_list, context, name=name)
    return await post_action(request, context, act, {"list": name}, READING_LIST)


@router.post(f"{READING_LIST}/lists/{{list_id}}/delete")
async def delete_list(request: Request, context: ContextDep, list_id: ListId) -> Response:
    act = partial(library.delete_list, context, list_id=list_id)
    return await post_action(request, context, act, {"deleted": list_id}, READING_LIST)
