"""Sign in with ORCID (``/signin/orcid…``) and unlinking a reader's iD
(``/for-you/orcid/unlink``); the rules are ``app.services.orcid_signin``'s.

The start is a plain link (a GET): it reads the session cookie, which a link on this site's
own pages carries, so a signed-in reader links their iD and anyone else signs in. It answers
303 to ORCID and sets the sign-in's cookie, ``SameSite=Lax``: ORCID sends the browser back with
a top-level GET from another site, on which a ``Strict`` cookie (the session's) is not sent.
That cookie goes to ``/signin/orcid`` paths only and is cleared once the sign-in ends.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse, Response

from app.services import accounts, orcid_signin
from app.services.orcid_signin import Finished, SignInOutcome
from app.services.subscriptions import session_seconds
from app.web import answers
from app.web.account_views import OrcidPage
from app.web.context import ContextDep, WebContext
from app.web.routes.reader import PRIVATE, post_action
from app.web.routes.voting import SESSION_COOKIE

router = APIRouter(include_in_schema=False)
FLOW_COOKIE = "paperboy_orcid"
FLOW_PATH = "/signin/orcid"


@router.get("/signin/orcid")
async def start(request: Request, context: ContextDep) -> Response:
    orcid_signin.require_on(context.settings)
    cookie = request.cookies.get(SESSION_COOKIE, "")
    reader = await run_in_threadpool(accounts.voter, context, cookie)
    started = await run_in_threadpool(orcid_signin.start, context, reader)
    response = RedirectResponse(started.url, status_code=303, headers=PRIVATE)
    response.set_cookie(
        FLOW_COOKIE,
        started.cookie,
        max_age=orcid_signin.flow_seconds(),
        path=FLOW_PATH,
        httponly=True,
        samesite="lax",
        secure=context.secure_cookies,
    )
    return response


@router.get("/signin/orcid/callback")
async def callback(
    request: Request, context: ContextDep, state: str = "", code: str = "", error: str = ""
) -> Response:
    """Where ORCID sends the browser back; the page says how the sign-in ended."""
    cookie = request.cookies.get(FLOW_COOKIE, "")
    finished = await run_in_threadpool(orcid_signin.finish, context, cookie, state, code, error)
    response = answers.page(request, context, "orcid", _ended(finished))
    response.headers.update(PRIVATE)
    response.delete_cookie(
        FLOW_COOKIE, path=FLOW_PATH, httponly=True, samesite="lax", secure=context.secure_cookies
    )
    if finished.cookie is not None:
        _keep_session(context, response, finished.cookie)
    return response


@router.post("/for-you/orcid/unlink")
async def unlink(request: Request, context: ContextDep) -> Response:
    def unlink_of(email_key: str) -> str | None:
        return orcid_signin.unlink(context, email_key)

    return await post_action(request, context, unlink_of, {"orcid": None}, "/for-you#orcid")


def _ended(finished: Finished) -> OrcidPage:
    if finished.outcome is SignInOutcome.LINKED:
        text = (
            f"Your ORCID iD {finished.orcid} is linked to {finished.voter}. From now on, "
            f"“Sign in with ORCID” signs you in as {finished.voter}."
        )
        return _page("ORCID iD linked", text, "/for-you#orcid", "Back to For you")
    if finished.outcome is SignInOutcome.SIGNED_IN:
        text = f"You are signed in as {finished.voter} with your ORCID iD {finished.orcid}."
        return _page("Signed in", text, "/for-you", "Go to For you")
    text = (
        f"No Paperboy account has the ORCID iD {finished.orcid} linked yet, so nobody was "
        "signed in. Sign in with your email address first (we mail you a link), then press "
        "“Link my ORCID iD” on your For you page; after that, “Sign in with ORCID” is enough."
    )
    return _page("Sign in with your email first", text, "/signin", "Sign in with email")


def _page(title: str, text: str, href: str, label: str) -> OrcidPage:
    return OrcidPage(title=title, text=text, next_href=href, next_label=label)


def _keep_session(context: WebContext, response: Response, cookie: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        cookie,
        max_age=session_seconds(context.settings),
        httponly=True,
        samesite="strict",
        secure=context.secure_cookies,
    )
