"""A paper's page (``/papers/{id}``, its discussion below: :mod:`app.web.routes.discussion`),
its citation downloads (``/papers/{id}/cite.bib``, ``.ris``, ``.json``,
``.txt?style=apa|ieee``) and its buttons (``/papers/{id}/…``): save, thumbs, file
under a list, read, note and "not interested".

The buttons are plain form POSTs, checked and run as every reader button is
(:func:`app.web.routes.reader.post_action`); they answer 303 back to the page they came from
(JSON to a script), else to the paper, the reading list or "For you".
"""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from app.core.refusals import BadChoice, NotFound
from app.services import library, readers
from app.services.radar import outcomes_known_until
from app.web import answers, queries, reader_views
from app.web.citations import Cited, bibtex_entry, ris
from app.web.citing import STYLES, citation_tags, cite, csl_json_item, reference
from app.web.context import ContextDep, SessionDep
from app.web.forms import paper_path_id, read_form, stored_id
from app.web.page_views import PaperPage
from app.web.routes.discussion import thread_part
from app.web.routes.library import READING_LIST
from app.web.routes.reader import PRIVATE, post_action
from app.web.routes.voting import SESSION_COOKIE
from app.web.view_models import PaperFacts, Signals, author_links, card

router = APIRouter(include_in_schema=False)
SIMILAR = 6
THUMBS = {"up": 1, "down": -1, "none": 0}


# What each download is: its media type, and whether a browser saves it (else shows it).
CITE_FORMATS = {
    "bib": ("application/x-bibtex; charset=utf-8", True),
    "ris": ("application/x-research-info-systems; charset=utf-8", True),
    "json": ("application/vnd.citationstyles.csl+json", True),
    "txt": ("text/plain; charset=utf-8", False),
}


# Declared before the page: the page's path would take "…/cite.bib" as part of an identifier.
@router.get("/papers/{arxiv_id:path}/cite.{suffix}")
def cite_download(
    request: Request, arxiv_id: str, suffix: str, session: SessionDep, style: str = "apa"
) -> Response:
    """The paper cited in one format; ``style`` picks the formatted reference of ``.txt``."""
    if suffix not in CITE_FORMATS:
        raise NotFound(f"no citation format .{suffix[:20]}: one of .bib, .ris, .json, .txt")
    if style not in STYLES:
        raise BadChoice(f"style is one of: {', '.join(STYLES)}")
    parsed = paper_path_id(arxiv_id)
    if parsed.base != arxiv_id:
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"/papers/{parsed.base}/cite.{suffix}{query}", status_code=308)
    found = queries.papers(session, [parsed.base]).get(parsed.base)
    if found is None:
        raise NotFound(f"paper {parsed.base} is not stored here")
    media_type, saved = CITE_FORMATS[suffix]
    name = "arXiv-" + found.arxiv_id.replace("/", "-") + f".{suffix}"
    disposition = f'{"attachment" if saved else "inline"}; filename="{name}"'
    body = _cited_as(found, suffix, style)
    return Response(body, media_type=media_type, headers={"Content-Disposition": disposition})


def _cited_as(paper: PaperFacts, suffix: str, style: str) -> str:
    if suffix == "bib":
        return bibtex_entry(paper) + "\n"
    if suffix == "ris":
        return ris([Cited(paper)])
    if suffix == "json":
        return csl_json_item(paper)
    return reference(paper, style) + "\n"


@router.get("/papers/{arxiv_id:path}", response_class=HTMLResponse)
def paper_page(
    request: Request, arxiv_id: str, context: ContextDep, session: SessionDep
) -> Response:
    parsed = paper_path_id(arxiv_id)
    if parsed.base != arxiv_id:
        # A versioned or prefixed spelling: one canonical page (a path on this site only).
        return RedirectResponse(f"/papers/{parsed.base}", status_code=308)
    # Before the request's session takes a connection: a search may need one of its own, and
    # a request holding one while it waits for another can starve the pool under load.
    similar = context.search.similar(parsed.base, SIMILAR)
    found = queries.papers(session, [parsed.base]).get(parsed.base)
    if found is None:
        raise NotFound(f"paper {parsed.base} is not stored here")
    signals = queries.signals(session, [found.arxiv_id]).get(found.arxiv_id, Signals())
    topic = queries.paper_topic(session, found.arxiv_id)
    known = outcomes_known_until(session)
    shown, headers = card(0, found, topic, None, signals, known), None
    # One paper, one reader: the page shows what they did with it, even without the script.
    email_key = reader_views.signed_in(context, session, request.cookies.get(SESSION_COOKIE, ""))
    if email_key is not None:
        shown, headers = reader_views.marked(session, email_key, shown), PRIVATE
    part, nonce = thread_part(request, context, session, found.arxiv_id, email_key)
    page = PaperPage(
        card=shown,
        authors=author_links(found.authors),
        similar=queries.plain_cards(session, similar),
        appearances=queries.appearances(session, found.arxiv_id),
        cite=cite(found),
        citation_tags=citation_tags(found),
        discussion=part,
    )
    response = context.respond(request, "pages/paper.html", page, headers=headers)
    return answers.with_csrf_cookie(context, response, nonce) if nonce else response


def _card(arxiv_id: str) -> str:
    return f"/papers/{arxiv_id}"


@router.post("/papers/{arxiv_id:path}/save")
async def save(request: Request, context: ContextDep, arxiv_id: str) -> Response:
    act = partial(readers.save_paper, context, arxiv_id=arxiv_id, saved=True)
    done = {"arxiv_id": arxiv_id, "saved": True}
    return await post_action(request, context, act, done, _card(arxiv_id))


@router.post("/papers/{arxiv_id:path}/unsave")
async def unsave(request: Request, context: ContextDep, arxiv_id: str) -> Response:
    act = partial(readers.save_paper, context, arxiv_id=arxiv_id, saved=False)
    done = {"arxiv_id": arxiv_id, "saved": False}
    return await post_action(request, context, act, done, _card(arxiv_id))


@router.post("/papers/{arxiv_id:path}/feedback")
async def feedback(request: Request, context: ContextDep, arxiv_id: str) -> Response:
    value = THUMBS.get((await read_form(request)).get("value"))
    if value is None:
        raise BadChoice("value is one of: up, down, none")
    act = partial(readers.give_feedback, context, arxiv_id=arxiv_id, value=value)
    done = {"arxiv_id": arxiv_id, "thumb": value}
    return await post_action(request, context, act, done, _card(arxiv_id))


@router.post("/papers/{arxiv_id:path}/file")
async def file_paper(request: Request, context: ContextDep, arxiv_id: str) -> Response:
    """File a paper under a list (``list``: its id; empty: the reading list alone)."""
    asked = (await read_form(request)).sent("list").strip()
    list_id = stored_id(asked) if asked else None
    if asked and list_id is None:
        raise BadChoice("list is one of your lists' ids, or empty")
    act = partial(library.file_paper, context, arxiv_id=arxiv_id, list_id=list_id)
    done = {"arxiv_id": arxiv_id, "list": list_id}
    return await post_action(request, context, act, done, READING_LIST)


@router.post("/papers/{arxiv_id:path}/read")
async def mark_read(request: Request, context: ContextDep, arxiv_id: str) -> Response:
    value = (await read_form(request)).get("value", "")
    if value not in ("read", "unread"):
        raise BadChoice("value is one of: read, unread")
    act = partial(library.mark_read, context, arxiv_id=arxiv_id, read=value == "read")
    done = {"arxiv_id": arxiv_id, "read": value == "read"}
    return await post_action(request, context, act, done, READING_LIST)


@router.post("/papers/{arxiv_id:path}/note")
async def note(request: Request, context: ContextDep, arxiv_id: str) -> Response:
    text = (await read_form(request)).sent("note")
    act = partial(library.set_note, context, arxiv_id=arxiv_id, text=text)
    return await post_action(request, context, act, {"arxiv_id": arxiv_id}, READING_LIST)


@router.post("/papers/{arxiv_id:path}/not-interested")
async def not_interested(request: Request, context: ContextDep, arxiv_id: str) -> Response:
    act = partial(library.not_interested, context, arxiv_id=arxiv_id)
    done = {"arxiv_id": arxiv_id, "hidden": True}
    return await post_action(request, context, act, done, "/for-you")
