"""A paper's discussion: its comment forms' POSTs (post, reply, edit, delete, report, a
display name), the thread's part of the paper page (:func:`thread_part`), the JSON list
``/api/papers/{id}/comments`` and the Atom feeds of a thread and of the site's discussion;
and the link in a mail about comments that turns that kind of mail off (``/comments/mail-off``:
a page with its button, or RFC 8058's one-click POST).

Every form carries the CSRF pair (:func:`app.web.forms.checked_form`) and answers 303 back to
the comment's anchor (``/papers/{id}?said=…#comment-{n}``, the status line saying what was
done), or JSON to a script (``static/discussion.js``): the comment's data, its HTML as the page
shows it (``item``, rendered by the thread's own macros) and what was done in words. What a
rule refuses answers its own status; another reader's comment is 404, as a missing one is.
"""

from __future__ import annotations

import secrets
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.core.arxiv_ids import parse_arxiv_id
from app.core.refusals import BadChoice
from app.services import accounts, comment_mail, discussion
from app.services.comment_mail import CommentMail
from app.services.discussion import Draft, Posted, ShownComment, Thread
from app.web import answers as page_answers
from app.web import feeds
from app.web.api_models import SiteThread
from app.web.caching import cached
from app.web.context import ContextDep, SessionDep, WebContext
from app.web.forms import (
    CSRF_COOKIE,
    MAX_ID,
    browser_nonce,
    checked_form,
    csrf_field,
    read_form,
    stored_id,
)
from app.web.page_views import ThreadPart
from app.web.routes.api import answers
from app.web.routes.reader import to_sign_in
from app.web.routes.voting import SESSION_COOKIE

router = APIRouter(include_in_schema=False)
api_router = APIRouter(prefix="/api", tags=["api"])
CommentId = Annotated[int, Path(ge=1, le=MAX_ID)]
FEED_SIZE = 50


def thread_part(
    request: Request, context: WebContext, session: Session, arxiv_id: str, email_key: str | None
) -> tuple[ThreadPart, str]:
    """The paper page's thread (``?comments=``: its page) and the CSRF nonce its forms need
    (empty: no forms, nobody signed in)."""
    page = stored_id(request.query_params.get("comments", "1")) or 1
    viewer = discussion.viewer(session, email_key)
    thread = discussion.thread_of(session, arxiv_id, viewer.subscriber_id, page)
    if email_key is None:
        return ThreadPart(thread, viewer, signed_in=False, said=said_line(request)), ""
    nonce = browser_nonce(request)
    csrf = csrf_field(context.settings, nonce)
    once = secrets.token_urlsafe(16)
    shown = ThreadPart(
        thread, viewer, signed_in=True, csrf=csrf, once=once, said=said_line(request)
    )
    return shown, nonce


# What each press did, in words: the thread's status line says it (after the redirect
# without the script, in its live region with it).
SAID = {
    "posted": "Posted.",
    "replied": "Reply posted.",
    "waiting": "Posted: it waits for a moderator before others see it.",
    "edited": "Saved: the comment now says it was edited.",
    "deleted": "Deleted: its text is gone; replies keep their place.",
    "reported": "Reported: a moderator will look at it. Thank you.",
}
FRAGMENT = "pages/_comment_fragment.html"


def said_line(request: Request) -> str:
    """The status line a redirect back to the thread asks for (``?said=``)."""
    return SAID.get(request.query_params.get("said", ""), "")


async def _act(request: Request, context: WebContext, act: partial[Posted], said: str) -> Response:
    """Run a comment's action as the signed-in reader; back to the comment's anchor, or to a
    script the comment as the page shows it (``item``) and what was done in words."""
    cookie = request.cookies.get(SESSION_COOKIE, "")
    email_key = await run_in_threadpool(accounts.voter, context, cookie)
    if email_key is None:
        return to_sign_in(request)
    done = await run_in_threadpool(act, email_key)
    if done.waiting and said in ("posted", "replied"):
        said = "waiting"
    anchor = f"/papers/{done.arxiv_id}#comment-{done.id}"
    if "application/json" in request.headers.get("accept", ""):
        found = await run_in_threadpool(discussion.comment_as_posted, context, done.id, email_key)
        part = _part_for(request, context, found)
        body = {"anchor": anchor, "waiting": done.waiting, "comment": _plain(found)}
        item = context.templates.get_template(FRAGMENT).render(
            c=found,
            d=part,
            p={"arxiv_id": found.arxiv_id},
            whole=found.parent_id is None and said in ("posted", "waiting"),
        )
        return JSONResponse(body | {"said": SAID[said], "item": item.strip(), "once": part.once})
    return RedirectResponse(f"/papers/{done.arxiv_id}?said={said}#comment-{done.id}", 303)


def _part_for(request: Request, context: WebContext, found: ShownComment) -> ThreadPart:
    """The forms' part of one comment its author just acted on (the CSRF pair the request
    proved, a fresh one-time value for the next post)."""
    csrf = csrf_field(context.settings, request.cookies.get(CSRF_COOKIE, ""))
    empty = Thread(found.arxiv_id, (), count=0, page=1, pages=1)
    return ThreadPart(
        empty,
        discussion.Viewer(None, found.name),
        signed_in=True,
        csrf=csrf,
        once=secrets.token_urlsafe(16),
    )


def _plain(found: ShownComment) -> dict[str, object]:
    return {
        "id": found.id,
        "replyTo": found.parent_id,
        "name": found.name,
        "paperAuthor": found.paper_author,
        "state": found.state.value,
        "createdAt": found.created_at.isoformat(),
        "editedAt": found.edited_at.isoformat() if found.edited_at else None,
        "html": found.html,
    }


@router.post("/papers/{arxiv_id:path}/comments")
async def post_comment(request: Request, context: ContextDep, arxiv_id: str) -> Response:
    """A comment (``body``), a reply (``reply_to``: a comment's id), with the form's
    ``once``; a first comment also chooses the reader's display name (``name``)."""
    form = await checked_form(request, context.settings)
    asked = form.get("reply_to").strip()
    parent = stored_id(asked) if asked else None
    if asked and parent is None:
        raise BadChoice("reply_to is a comment's id, or empty")
    once = form.get("once").strip()[:64] or secrets.token_urlsafe(16)
    draft = Draft(
        arxiv_id=parse_arxiv_id(arxiv_id).base,
        body=form.get("body"),
        once=once,
        parent_id=parent,
        name=form.get("name"),
    )
    said = "replied" if parent else "posted"
    return await _act(
        request, context, partial(discussion.post_comment, context, draft=draft), said
    )


@router.post("/comments/{comment_id}/edit")
async def edit_comment(request: Request, context: ContextDep, comment_id: CommentId) -> Response:
    form = await checked_form(request, context.settings)
    act = partial(discussion.edit_comment, context, comment_id=comment_id, body=form.get("body"))
    return await _act(request, context, act, "edited")


@router.post("/comments/{comment_id}/delete")
async def delete_comment(request: Request, context: ContextDep, comment_id: CommentId) -> Response:
    await checked_form(request, context.settings)
    act = partial(discussion.delete_comment, context, comment_id=comment_id)
    return await _act(request, context, act, "deleted")


@router.post("/comments/{comment_id}/report")
async def report_comment(request: Request, context: ContextDep, comment_id: CommentId) -> Response:
    """Report a comment to the moderators, with a ``reason``."""
    form = await checked_form(request, context.settings)
    reason = form.get("reason")
    act = partial(discussion.report_comment, context, comment_id=comment_id, reason=reason)
    return await _act(request, context, act, "reported")


@api_router.get(
    "/papers/{arxiv_id:path}/comments", response_model=SiteThread, responses=answers(400, 404)
)
def comments_json(
    request: Request,
    session: SessionDep,
    arxiv_id: str,
    page: Annotated[int, Query(ge=1, le=100_000, description="Page of top comments")] = 1,
) -> Response:
    """A paper's thread: its top comments, oldest first, a page at a time, each with its
    replies; names are the display names readers chose, never an address."""
    base = parse_arxiv_id(arxiv_id).base
    found = discussion.thread_of(session, base, None, page)
    body = {
        "arxivId": base,
        "count": found.count,
        "page": found.page,
        "pages": found.pages,
        "comments": [
            _plain(top.comment) | {"replies": [_plain(r) for r in top.replies]}
            for top in found.comments
        ],
    }
    return JSONResponse(body)


def _atom(
    context: WebContext, title: str, paths: tuple[str, str], shown: list[ShownComment]
) -> bytes:
    site = context.settings.public_base_url.rstrip("/")
    newest = max((one.edited_at or one.created_at for one in shown), default=None)
    feed = feeds.feed_head(title, site + paths[0], site + paths[1], None)
    updated = feed.find(f"{{{feeds.ATOM}}}updated")
    if updated is not None and newest is not None:
        updated.text = newest.astimezone(UTC).isoformat()
    for one in shown:
        entry = ET.SubElement(feed, f"{{{feeds.ATOM}}}entry")
        url = f"{site}/papers/{one.arxiv_id}#comment-{one.id}"
        feeds.text(entry, "title", f"{one.name} on {one.arxiv_id}")
        feeds.text(entry, "id", url)
        feeds.link(entry, url, "alternate")
        feeds.text(entry, "updated", (one.edited_at or one.created_at).isoformat())
        author = ET.SubElement(entry, f"{{{feeds.ATOM}}}author")
        feeds.text(author, "name", one.name)
        feeds.text(entry, "content", one.html, kind="html")
    return feeds.body(feed)


@router.get("/papers/{arxiv_id:path}/comments.atom")
def thread_feed(
    request: Request, context: ContextDep, session: SessionDep, arxiv_id: str
) -> Response:
    base = parse_arxiv_id(arxiv_id).base
    shown = discussion.recent_comments(session, base, FEED_SIZE)
    paths = (f"/papers/{base}", f"/papers/{base}/comments.atom")
    return cached(
        request,
        _atom(context, f"Discussion of {base}", paths, shown),
        feeds.MEDIA_TYPES["atom"],
        _when(shown),
    )


@router.get("/discussion.atom")
def site_feed(request: Request, context: ContextDep, session: SessionDep) -> Response:
    shown = discussion.recent_comments(session, None, FEED_SIZE)
    paths = ("/", "/discussion.atom")
    return cached(
        request,
        _atom(context, "Paperboy: recent discussion", paths, shown),
        feeds.MEDIA_TYPES["atom"],
        _when(shown),
    )


def _when(shown: list[ShownComment]) -> datetime | None:
    return max((one.edited_at or one.created_at for one in shown), default=None)


# What each kind of mail is about, as its page and answer say it.
_ABOUT = {
    CommentMail.REPLIES: "replies to your comments",
    CommentMail.PAPERS: "new comments on your papers",
}


@dataclass(frozen=True, slots=True)
class MailOffPage:
    csrf: str
    token: str
    what: str
    other: str


@router.get("/comments/mail-off")
async def mail_off_page(request: Request, context: ContextDep, token: str = "") -> Response:
    """The page a comment mail's link opens: opening it changes nothing (a mail scanner
    opens every link); its button turns that kind of mail off."""
    kind = await run_in_threadpool(comment_mail.mail_off_kind, context, token)
    other = next(about for one, about in _ABOUT.items() if one is not kind)
    nonce = browser_nonce(request)
    csrf = csrf_field(context.settings, nonce)
    view = MailOffPage(csrf=csrf, token=token, what=_ABOUT[kind], other=other)
    return page_answers.form_page(request, context, "comment_mail_off", view, nonce)


@router.post("/comments/mail-off")
async def mail_off(request: Request, context: ContextDep, token: str = "") -> Response:
    """RFC 8058 one-click, or the page's button: turn off the kind of mail the link names.

    No CSRF pair or origin check, as for the digest's unsubscribe: the mail provider posts
    it, and the link's own token (bound to this reader) is what authorises it.
    """
    if not token:
        token = (await read_form(request)).get("token")
    kind = await run_in_threadpool(comment_mail.turn_off, context, token)
    text = f"You will get no more mail about {_ABOUT[kind]}. Your page turns it on again."
    return page_answers.message(request, context, "Turned off", text)
