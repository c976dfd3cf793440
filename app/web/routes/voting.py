"""Sign-in by email link (single use), sign-out, and votes: a signed-in person upvotes a
paper once.

The session is a signed cookie naming the mailbox and its sign-in key
(``accounts.signin``), sent only to this site (SameSite=Strict) and checked against the
Origin the browser gives, so another site cannot make a signed-in browser vote. Signing out
clears this browser's cookie; the cookie's value itself stays valid until it expires, so a
copy of it (another browser, a stolen one) ends only with "sign out everywhere", which draws
the mailbox a new sign-in key.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.background import BackgroundTask

from app.services import accounts, mail_outbox
from app.services.subscriptions import (
    BadAddressError,
    RateLimitedError,
    UnknownPaperError,
    parse_address,
    session_seconds,
)
from app.web import answers
from app.web.account_views import CheckInboxPage, SigninPage
from app.web.context import ContextDep, WebContext
from app.web.forms import (
    CSRF_COOKIE,
    browser_nonce,
    checked_form,
    client_host,
    csrf_field,
    from_this_site,
)

router = APIRouter(include_in_schema=False)
SESSION_COOKIE = "paperboy_session"


@router.get("/signin")
async def signin_form(request: Request, context: ContextDep) -> HTMLResponse:
    nonce = browser_nonce(request)
    view = SigninPage(csrf_field(context.settings, nonce), context.settings.orcid_sign_in)
    return answers.form_page(request, context, "signin", view, nonce)


@router.post("/signin")
async def request_link(request: Request, context: ContextDep) -> HTMLResponse:
    form = await checked_form(request, context.settings)
    try:
        address = parse_address(form.get("email"))
        client = client_host(request)
        ticket = await run_in_threadpool(accounts.request_signin, context, address, client)
    except BadAddressError as error:
        return answers.message(request, context, "Please check the form", str(error), 422)
    except RateLimitedError:
        return answers.message(request, context, "Slow down", "Please try again in an hour.", 429)
    view = CheckInboxPage(address.delivery, ticket, sign_in=True)
    response = answers.page(request, context, "check_inbox", view)
    response.background = BackgroundTask(mail_outbox.send_now, context, ticket)
    return response


@router.get("/signin/confirm")
async def confirm_page(request: Request, context: ContextDep, token: str = "") -> Response:
    """A mailed sign-in link opens this page; its button signs in (a scanner's GET doesn't)."""
    await run_in_threadpool(accounts.check_signin_link, context, token)
    return answers.action_page(
        request,
        context,
        title="Sign in to Paperboy",
        text="Sign in on this browser to vote for papers.",
        button="Sign in",
        action="/signin/confirm",
        token=token,
    )


@router.post("/signin/confirm")
async def confirm(request: Request, context: ContextDep) -> HTMLResponse:
    form = await checked_form(request, context.settings)
    nonce = request.cookies[CSRF_COOKIE]  # checked_form refuses a POST without it
    signed_in = await run_in_threadpool(accounts.sign_in, context, form.get("token"), nonce)
    text = f"You can vote now as {signed_in.voter}."
    response = answers.message(request, context, "Signed in", text)
    response.set_cookie(
        SESSION_COOKIE,
        signed_in.cookie,
        max_age=session_seconds(context.settings),
        httponly=True,
        samesite="strict",
        secure=context.secure_cookies,
    )
    return response


@router.post("/signout")
async def sign_out(request: Request, context: ContextDep) -> HTMLResponse:
    """This browser forgets its session (the form's CSRF pair needed, as for signing in)."""
    await checked_form(request, context.settings)
    text = (
        "You are signed out on this browser. Other browsers signed in as you stay signed in "
        "until you sign out everywhere."
    )
    return _without_session(context, answers.message(request, context, "Signed out", text))


@router.post("/signout/everywhere")
async def sign_out_everywhere(request: Request, context: ContextDep) -> Response:
    """Every browser signed in as this mailbox, and every sign-in link mailed, stop working."""
    await checked_form(request, context.settings)
    voter = await run_in_threadpool(
        accounts.voter, context, request.cookies.get(SESSION_COOKIE, "")
    )
    if voter is None:
        return RedirectResponse("/signin", status_code=303)
    await run_in_threadpool(accounts.sign_out_everywhere, context, voter)
    text = (
        f"Every browser signed in as {voter} is signed out, and sign-in links already mailed "
        "no longer work. What you saved, thumbed and follow, and your digest, are kept."
    )
    page = answers.message(request, context, "Signed out everywhere", text)
    return _without_session(context, page)


def _without_session(context: WebContext, response: HTMLResponse) -> HTMLResponse:
    response.delete_cookie(
        SESSION_COOKIE, httponly=True, samesite="strict", secure=context.secure_cookies
    )
    return response


@router.post("/votes/{arxiv_id}")
async def upvote(request: Request, context: ContextDep, arxiv_id: str) -> Response:
    return await _vote(request, context, arxiv_id, up=True)


@router.delete("/votes/{arxiv_id}")
async def take_back(request: Request, context: ContextDep, arxiv_id: str) -> Response:
    return await _vote(request, context, arxiv_id, up=False)


async def _vote(request: Request, context: ContextDep, arxiv_id: str, *, up: bool) -> Response:
    if not from_this_site(request, context.settings.public_base_url):
        return JSONResponse({"detail": "refused: sent from another site"}, status_code=403)
    cookie = request.cookies.get(SESSION_COOKIE, "")
    voter = await run_in_threadpool(accounts.voter, context, cookie)
    if voter is None:
        return JSONResponse({"detail": "sign in to vote: /signin"}, status_code=401)
    try:
        count = await run_in_threadpool(accounts.vote, context, voter, arxiv_id, up=up)
    except UnknownPaperError:
        return JSONResponse({"detail": f"no paper {arxiv_id}"}, status_code=404)
    return JSONResponse({"arxiv_id": arxiv_id, "votes": count, "voted": up})
