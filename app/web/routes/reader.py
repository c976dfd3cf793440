"""A signed-in reader's pages under ``/for-you`` ("For you", its private feed, the data
export, "away", mail about discussions, personal access tokens) and saved searches under
``/searches``; and
:func:`post_action`, which every reader button runs through (a paper's in ``routes.papers``,
an author's in ``routes.authors``, a topic's in ``routes.topics``, a person's in
``routes.people``).

Every button is a plain form POST that works without JavaScript: it acts, then answers 303
back to the page it came from (or, to a script asking for JSON, the new state). A POST is
taken only from this site's pages (``app.web.forms``) with the SameSite=Strict session
cookie, as a vote is; a reader who is not signed in is sent to ``/signin`` (a script gets
401). The private feed's URL carries a token instead of the cookie, for feed readers;
revoking it draws a new key, and every URL given before stops working.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from typing import Annotated, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.core.tokens import TokenError
from app.services import access_tokens, accounts, comment_mail, readers
from app.services.readers import Stance
from app.services.reading import Stances, reader_stances
from app.web import answers, reader_views
from app.web.caching import cached
from app.web.context import ContextDep, SessionDep, WebContext
from app.web.feeds import MEDIA_TYPES, RENDERERS, FeedSpec
from app.web.forms import MAX_ID, browser_nonce, csrf_field, own_path, read_form, require_this_site
from app.web.routes.voting import SESSION_COOKIE

router = APIRouter(include_in_schema=False)
Format = Literal["rss", "atom", "json"]
Verb = Literal["follow", "mute"]
VERBS = {"follow": Stance.FOLLOW, "mute": Stance.MUTE}
PRIVATE = {"Cache-Control": "private, no-store"}


async def _signed_in(request: Request, context: WebContext) -> str | None:
    cookie = request.cookies.get(SESSION_COOKIE, "")
    return await run_in_threadpool(accounts.voter, context, cookie)


def _wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def _back(request: Request, fallback: str) -> str:
    """The page the form was on (a path of this site only), else ``fallback``."""
    return own_path(request.headers.get("referer", ""), request.url.netloc) or fallback


def to_sign_in(request: Request) -> Response:
    if _wants_json(request):
        return JSONResponse({"detail": "sign in first: /signin"}, status_code=401)
    return RedirectResponse("/signin", status_code=303)


async def post_action(
    request: Request,
    context: WebContext,
    action: Callable[[str], object],
    done: Mapping[str, object],
    fallback: str,
) -> Response:
    """Check a button's POST, run its action (a use case, given the signed-in reader's key)
    in the thread pool, answer back; what the action refuses answers its own status."""
    require_this_site(request, context.settings)
    email_key = await _signed_in(request, context)
    if email_key is None:
        return to_sign_in(request)
    await run_in_threadpool(action, email_key)
    if _wants_json(request):
        return JSONResponse(dict(done))
    return RedirectResponse(_back(request, fallback), status_code=303)


async def asked_stance(request: Request, verb: Verb) -> Stance:
    """A follow or mute button's stance, or neither when the form says ``undo``."""
    return Stance.NEITHER if (await read_form(request)).get("undo") else VERBS[verb]


def signed_in_reading(request: Request, context: WebContext, session: Session) -> str | None:
    """Who is signed in, read with the request's own session (for the pages that read)."""
    return reader_views.signed_in(context, session, request.cookies.get(SESSION_COOKIE, ""))


def signed_in_stances(request: Request, context: WebContext, session: Session) -> Stances | None:
    """Where the signed-in reader stands (None: nobody signed in), for a page with follow
    buttons: it shows the pressed one as its undo, even without the script."""
    email_key = signed_in_reading(request, context, session)
    return None if email_key is None else reader_stances(session, email_key)


@router.get("/for-you", response_class=HTMLResponse)
def for_you(request: Request, context: ContextDep, session: SessionDep) -> Response:
    email_key = signed_in_reading(request, context, session)
    if email_key is None:
        page = reader_views.ForYouPage(None, orcid_sign_in=context.settings.orcid_sign_in)
        return context.respond(request, "pages/for_you.html", page, headers=PRIVATE)
    page = reader_views.for_you(context, session, email_key)
    nonce = browser_nonce(request)  # the sign-out buttons' CSRF pair
    page = replace(page, csrf=csrf_field(context.settings, nonce))
    response = context.respond(request, "pages/for_you.html", page, headers=PRIVATE)
    return answers.with_csrf_cookie(context, response, nonce)


@router.get("/for-you/state.json")
def state(request: Request, context: ContextDep, session: SessionDep) -> JSONResponse:
    """What the signed-in reader did, for the script that marks the buttons of shared pages."""
    email_key = signed_in_reading(request, context, session)
    if email_key is None:
        return JSONResponse({"signed_in": False}, headers=PRIVATE)
    found = reader_views.state(session, email_key)
    return JSONResponse(found, headers=PRIVATE)


@router.get("/for-you/feed.{fmt}")
def private_feed(
    request: Request, context: ContextDep, session: SessionDep, fmt: Format, token: str = ""
) -> Response:
    try:
        edition, cards = reader_views.private_feed(context, session, token)
    except TokenError as refused:
        return Response(f"{refused}\n", status_code=403, media_type="text/plain")
    site = context.settings.public_base_url.rstrip("/")
    when = datetime.combine(edition.edition_date, datetime.min.time(), UTC) if edition else None
    spec = FeedSpec(
        title="Paperboy: for you",
        description="The trending arXiv papers your digest picks, with why.",
        site_url=site,
        page_path="/for-you",
        # Its own URL, token included, so the feed's self link opens it again.
        feed_path=f"/for-you/feed.{fmt}?{urlencode({'token': token})}",
        updated=when or context.clock(),
        cards=cards,
    )
    # A feed reader may keep it (privately) and ask again with its ETag: the body changes with
    # the edition and with the reader's own choices, which the ETag follows.
    response = cached(request, RENDERERS[fmt](spec), MEDIA_TYPES[fmt], spec.updated)
    response.headers["Cache-Control"] = "private, no-cache"
    return response


@router.get("/for-you/data.json")
def data(request: Request, context: ContextDep, session: SessionDep) -> Response:
    """Everything Paperboy holds about the signed-in reader (the subscription's export)."""
    email_key = signed_in_reading(request, context, session)
    if email_key is None:
        return to_sign_in(request)
    found = reader_views.data_of(session, email_key)
    headers = PRIVATE | {"Content-Disposition": 'attachment; filename="paperboy-data.json"'}
    return JSONResponse(found, headers=headers)


@router.post("/for-you/delete")
async def forget(request: Request, context: ContextDep) -> Response:
    """Delete everything about the signed-in reader; every session of theirs ends."""
    require_this_site(request, context.settings)
    email_key = await _signed_in(request, context)
    if email_key is None:
        return to_sign_in(request)
    await run_in_threadpool(readers.forget, context, email_key)
    text = "Everything Paperboy held about you is deleted, and you are signed out."
    response = answers.message(request, context, "Deleted", text)
    response.delete_cookie(SESSION_COOKIE)
    return response


@router.post("/for-you/away")
async def away(request: Request, context: ContextDep) -> Response:
    """ "I was away since" (``since``, a day; empty: not away): the next day digest is a
    catch-up of the days since then."""
    since = readers.away_since(context, (await read_form(request)).sent("since"))
    done = {"away_since": since.isoformat() if since else None}
    act = partial(readers.mark_away, context, since=since)
    return await post_action(request, context, act, done, "/for-you#away")


@router.post("/for-you/comment-mail")
async def switch_comment_mail(request: Request, context: ContextDep) -> Response:
    """The reader's two kinds of mail about discussions, and the digest's papers discussed,
    on or off as the form's boxes are."""
    form = await read_form(request)
    asked = comment_mail.MailSwitches(
        replies=form.get("replies") == "on",
        papers=form.get("papers") == "on",
        discussed=form.get("discussed") == "on",
    )
    act = partial(comment_mail.set_switches, context, asked=asked)
    done = {"replies": asked.replies, "papers": asked.papers, "discussed": asked.discussed}
    return await post_action(request, context, act, done, "/for-you#comment-mail")


@router.post("/for-you/feed")
async def make_feed(request: Request, context: ContextDep) -> Response:
    act = partial(readers.make_feed, context)
    return await post_action(request, context, act, {"feed": True}, "/for-you")


@router.post("/for-you/feed/revoke")
async def revoke_feed(request: Request, context: ContextDep) -> Response:
    act = partial(readers.revoke_feed, context)
    return await post_action(request, context, act, {"revoked": True}, "/for-you")


@router.post("/for-you/tokens")
async def make_token(request: Request, context: ContextDep) -> Response:
    """A new personal access token, shown once on the page this answers (never stored)."""
    require_this_site(request, context.settings)
    email_key = await _signed_in(request, context)
    if email_key is None:
        return to_sign_in(request)
    form = await read_form(request)
    name, scope = form.get("name", ""), form.get("scope", "read")
    made = partial(access_tokens.make_token, context, name=name, scope=scope)
    token = await run_in_threadpool(made, email_key, lifetime=form.get("lifetime", "90"))
    if _wants_json(request):
        return JSONResponse({"token": token, "name": name, "scope": scope}, headers=PRIVATE)
    site = context.settings.public_base_url.rstrip("/")
    page = reader_views.NewTokenPage(token=token, name=name, scope=scope, site_url=site)
    return context.respond(request, "pages/new_token.html", page, headers=PRIVATE)


@router.post("/for-you/tokens/{token_id}/revoke")
async def revoke_token(
    request: Request, context: ContextDep, token_id: Annotated[int, Path(ge=1, le=MAX_ID)]
) -> Response:
    act = partial(access_tokens.revoke_token, context, token_id=token_id)
    return await post_action(request, context, act, {"revoked": token_id}, "/for-you#tokens")


@router.post("/searches/save")
async def save_search(request: Request, context: ContextDep) -> Response:
    """Follow the search in the form (``q``, ``category``): a section of the digest."""
    form = await read_form(request)
    query, category = form.get("q", ""), form.get("category", "")
    act = partial(readers.save_search, context, query=query, category=category)
    done: dict[str, object] = {"saved_search": query, "category": category}
    return await post_action(request, context, act, done, "/for-you#searches")


@router.post("/searches/{search_id}/delete")
async def forget_search(
    request: Request, context: ContextDep, search_id: Annotated[int, Path(ge=1, le=MAX_ID)]
) -> Response:
    act = partial(readers.forget_search, context, search_id=search_id)
    return await post_action(request, context, act, {"deleted": search_id}, "/for-you#searches")
