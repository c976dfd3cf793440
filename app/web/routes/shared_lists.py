"""Lists a group shares, under ``/lists``: a shared list's page and its Atom, RSS and JSON
feeds, the buttons of its owner and editors (add, remove, note, rename, publish, invite), of
its readers (follow, copy), sharing one of the reader's lists from the reading list, and the
page a mailed invitation opens.

Every button is a plain form POST checked as :mod:`app.web.routes.reader`'s are (this site's
pages only, the SameSite=Strict session cookie) and answered 303 to the list's page, which
says what was done (``?done=``), or JSON to a script. A list the reader may not see or
change is a 404, as one that does not exist; what cannot be kept is a 400 saying why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from functools import partial
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.background import BackgroundTask

from app.core.tokens import TokenError
from app.services import mail_outbox, shared_lists
from app.web import answers
from app.web.caching import cached
from app.web.context import ContextDep, SessionDep, WebContext
from app.web.feeds import MEDIA_TYPES, RENDERERS, FeedSpec
from app.web.forms import MAX_ID, read_form, require_this_site
from app.web.queries import plain_cards
from app.web.routes.reader import PRIVATE, _signed_in, _wants_json, signed_in_reading, to_sign_in

router = APIRouter(include_in_schema=False)
Slug = Annotated[str, Path(min_length=1, max_length=80, pattern=r"^[a-z0-9-]+$")]
ListId = Annotated[int, Path(ge=1, le=MAX_ID)]
Format = Literal["rss", "atom", "json"]
# What the list's page says after each button.
DONE = {
    "shared": "The list is shared.",
    "published": "The list is published: anyone with its address can read it.",
    "unpublished": "The list is no longer public; its editors still see it.",
    "added": "The paper is on the list.",
    "removed": "The paper is off the list.",
    "noted": "The note is saved.",
    "renamed": "The list is renamed.",
    "notes": "Who sees the notes is changed.",
    "invited": "The invitation is on its way.",
    "uninvited": "That address no longer edits the list.",
    "followed": "You follow this list: its new papers come in your digest.",
    "unfollowed": "You no longer follow this list.",
    "joined": "You edit this list now.",
}


@dataclass(frozen=True)
class SharedListPage:
    view: shared_lists.ListView
    done: str
    signed_in: bool


@dataclass(frozen=True)
class InvitationPage:
    title: str
    token: str
    address: str
    signed_in_as: str | None


def _list_path(slug: str, done: str = "") -> str:
    return f"/lists/{slug}" + (f"?done={done}" if done else "")


@router.get("/lists/invitation", response_class=HTMLResponse)
def invitation_page(
    request: Request, context: ContextDep, session: SessionDep, token: str = ""
) -> Response:
    """A mailed invitation opens this page; its button accepts (a scanner's GET doesn't)."""
    try:
        address, list_id, _ = shared_lists.invitation(context, token)
    except TokenError as refused:
        return answers.refused_link(request, context, refused)
    shared = shared_lists.invited_list(session, list_id)
    if shared is None:
        text = "The list this invitation was for is deleted."
        return answers.message(request, context, "This link does not work", text, 404)
    signed_in = signed_in_reading(request, context, session)
    page = InvitationPage(title=shared.title, token=token, address=address, signed_in_as=signed_in)
    return context.respond(request, "pages/list_invitation.html", page, headers=PRIVATE)


@router.get("/lists/{slug}", response_class=HTMLResponse)
def list_page(
    request: Request, context: ContextDep, session: SessionDep, slug: Slug, done: str = ""
) -> Response:
    email_key = signed_in_reading(request, context, session)
    view = shared_lists.list_view(session, slug, email_key)
    page = SharedListPage(view, DONE.get(done, ""), email_key is not None)
    headers = PRIVATE if email_key is not None or view.shared.published_at is None else None
    return context.respond(request, "pages/shared_list.html", page, headers=headers)


@router.get("/lists/{slug}/feed.{fmt}")
def list_feed(
    request: Request, context: ContextDep, session: SessionDep, slug: Slug, fmt: Format
) -> Response:
    """A published list's papers as a feed, newest added first (notes as its page shows)."""
    view = shared_lists.list_view(session, slug, None)
    listed = view.papers
    updated = max((p.added_at for p in listed), default=view.shared.created_at)
    spec = FeedSpec(
        title=f"Paperboy list: {view.shared.title}",
        description=view.shared.description or f"The papers of the list {view.shared.title}.",
        site_url=context.settings.public_base_url.rstrip("/"),
        page_path=_list_path(slug),
        feed_path=f"/lists/{slug}/feed.{fmt}",
        updated=updated.astimezone(UTC),
        cards=plain_cards(session, [p.paper.arxiv_id for p in listed]),
    )
    return cached(request, RENDERERS[fmt](spec), MEDIA_TYPES[fmt], spec.updated)


async def _act(
    request: Request, context: WebContext, action: Callable[[str], object], slug: str, done: str
) -> Response:
    """Check the button's POST, run it as the signed-in reader, answer with what was done."""
    require_this_site(request, context.settings)
    email_key = await _signed_in(request, context)
    if email_key is None:
        return to_sign_in(request)
    result = await run_in_threadpool(action, email_key)
    slug = result if isinstance(result, str) and done in {"shared", "joined"} else slug
    if _wants_json(request):
        return JSONResponse({"done": done, "message": DONE[done], "slug": slug})
    return RedirectResponse(_list_path(slug, done), status_code=303)


async def _act_on_fields(
    request: Request,
    context: WebContext,
    slug: str,
    done: str,
    use_case: Callable[..., object],
    **fields: str,
) -> Response:
    """A button whose form's text fields go to ``use_case`` about the list ``slug``: each
    keyword names an argument of the use case and, as its value, the form field it is read
    from."""
    form = await read_form(request)
    sent = {argument: form.get(name) for argument, name in fields.items()}
    act = partial(use_case, context, slug=slug, **sent)
    return await _act(request, context, act, slug, done)


@router.post("/reading-list/lists/{list_id}/share")
async def share(request: Request, context: ContextDep, list_id: ListId) -> Response:
    form = await read_form(request)
    wording = (form.get("title"), form.get("description"), form.get("shown_name"))
    publish = form.get("publish") == "yes"
    act = partial(shared_lists.share, context, list_id=list_id, wording=wording, publish=publish)
    return await _act(request, context, act, "", "shared")


@router.post("/lists/{slug}/publish")
async def publish(request: Request, context: ContextDep, slug: Slug) -> Response:
    shown = (await read_form(request)).get("shown") == "yes"
    act = partial(shared_lists.publish, context, slug=slug, shown=shown)
    return await _act(request, context, act, slug, "published" if shown else "unpublished")


@router.post("/lists/{slug}/notes")
async def notes_shown(request: Request, context: ContextDep, slug: Slug) -> Response:
    shown = (await read_form(request)).get("shown") == "yes"
    act = partial(shared_lists.show_notes, context, slug=slug, shown=shown)
    return await _act(request, context, act, slug, "notes")


@router.post("/lists/{slug}/papers")
async def add_paper(request: Request, context: ContextDep, slug: Slug) -> Response:
    arxiv_id = (await read_form(request)).get("arxiv_id").strip()
    act = partial(shared_lists.add_paper, context, slug=slug, arxiv_id=arxiv_id)
    return await _act(request, context, act, slug, "added")


@router.post("/lists/{slug}/papers/remove")
async def remove_paper(request: Request, context: ContextDep, slug: Slug) -> Response:
    return await _act_on_fields(
        request, context, slug, "removed", shared_lists.remove_paper, arxiv_id="arxiv_id"
    )


@router.post("/lists/{slug}/papers/note")
async def note(request: Request, context: ContextDep, slug: Slug) -> Response:
    return await _act_on_fields(
        request, context, slug, "noted", shared_lists.set_note, arxiv_id="arxiv_id", text="note"
    )


@router.post("/lists/{slug}/rename")
async def rename(request: Request, context: ContextDep, slug: Slug) -> Response:
    return await _act_on_fields(
        request, context, slug, "renamed", shared_lists.rename, title="title"
    )


@router.post("/lists/{slug}/follow")
async def follow(request: Request, context: ContextDep, slug: Slug) -> Response:
    follows = not (await read_form(request)).get("undo")
    act = partial(shared_lists.follow, context, slug=slug, follows=follows)
    return await _act(request, context, act, slug, "followed" if follows else "unfollowed")


@router.post("/lists/{slug}/copy")
async def copy(request: Request, context: ContextDep, slug: Slug) -> Response:
    require_this_site(request, context.settings)
    email_key = await _signed_in(request, context)
    if email_key is None:
        return to_sign_in(request)
    list_id = await run_in_threadpool(partial(shared_lists.copy, context, email_key, slug))
    if _wants_json(request):
        return JSONResponse({"done": "copied", "list_id": list_id})
    return RedirectResponse(f"/reading-list?list={list_id}", status_code=303)


@router.post("/lists/{slug}/editors")
async def invite(request: Request, context: ContextDep, slug: Slug) -> Response:
    address = (await read_form(request)).get("email")
    tickets: list[str] = []

    def act(email_key: str) -> None:
        tickets.append(shared_lists.invite(context, email_key, slug, address))

    response = await _act(request, context, act, slug, "invited")
    if tickets:
        response.background = BackgroundTask(mail_outbox.send_now, context, tickets[0])
    return response


@router.post("/lists/{slug}/editors/remove")
async def remove_editor(request: Request, context: ContextDep, slug: Slug) -> Response:
    return await _act_on_fields(
        request, context, slug, "uninvited", shared_lists.remove_editor, editor="email_key"
    )


@router.post("/lists/invitation")
async def accept(request: Request, context: ContextDep) -> Response:
    form = await read_form(request)
    token, name = form.get("token"), form.get("shown_name")
    try:
        shared_lists.invitation(context, token)
    except TokenError as refused:
        return answers.refused_link(request, context, refused)
    act = partial(shared_lists.accept, context, token=token, name=name)
    return await _act(request, context, act, "", "joined")
