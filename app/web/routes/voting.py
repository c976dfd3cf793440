"""Sign-in by email link (single use) and votes: a signed-in person upvotes a paper once.

The session is a signed cookie naming the mailbox and its sign-in key
(``digest.accounts.signin``), sent only to this site (SameSite=Strict) and checked against the
Origin the browser gives, so another site cannot make a signed-in browser vote.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.background import BackgroundTask

from app.core.db import session_scope
from app.core.tokens import TokenError
from app.web.origin import from_this_site
from digest.accounts import links, signin, votes
from digest.accounts.addresses import Address, BadAddressError, parse_address
from digest.accounts.subscriptions import RateLimitedError, check_rate
from digest.mail.confirmation import signin_message
from digest.mail.messages import OutgoingMail

if TYPE_CHECKING:
    from app.web.routes.subscriptions import Pages

SESSION_COOKIE = "paperboy_session"


def add_routes(router: APIRouter, pages: Pages) -> None:
    voting = _Voting(pages)
    router.add_api_route("/signin", voting.form, methods=["GET"])
    router.add_api_route("/signin", voting.request_link, methods=["POST"])
    router.add_api_route("/signin/confirm", voting.confirm_page, methods=["GET"])
    router.add_api_route("/signin/confirm", voting.confirm, methods=["POST"])
    router.add_api_route("/votes/{arxiv_id}", voting.upvote, methods=["POST"])
    router.add_api_route("/votes/{arxiv_id}", voting.take_back, methods=["DELETE"])


class _Voting:
    def __init__(self, pages: Pages) -> None:
        self.pages = pages

    async def form(self, request: Request) -> HTMLResponse:
        return self.pages.with_csrf(request, "signin")

    async def request_link(self, request: Request) -> HTMLResponse:
        form, _ = await self.pages.form_fields(request)
        refusal = self.pages.form_refusal(request, form)
        if refusal is not None:
            return refusal
        try:
            address = parse_address(form.get("email", ""))
            mail = await run_in_threadpool(self._link_mail, address, _client(request))
        except BadAddressError as error:
            return self.pages.message(request, "Please check the form", str(error), 422)
        except RateLimitedError:
            return self.pages.message(request, "Slow down", "Please try again in an hour.", 429)
        text = f"A sign-in link is on its way to {address.delivery}."
        response = self.pages.message(request, "Check your inbox", text)
        response.background = BackgroundTask(self.pages.send, mail)
        return response

    def _link_mail(self, address: Address, client: str) -> OutgoingMail:
        settings, now = self.pages.settings, self.pages.clock()
        with session_scope(self.pages.sessions) as session:
            check_rate(session, settings, f"signin:{address.key}", client, now)
            key = signin.key_for(session, address.key, now)
        return signin_message(settings, address.delivery, key, now)

    async def confirm_page(self, request: Request, token: str = "") -> Response:
        """A mailed sign-in link opens this page; its button signs in (a scanner's GET doesn't)."""
        try:
            await run_in_threadpool(self._check_link, token)
        except TokenError as error:
            return self.pages.refused(request, error)
        return self.pages.action_page(
            request, "/signin/confirm", token, title="Sign in to Paperboy",
            text="Sign in on this browser to vote for papers.", button="Sign in",
        )  # fmt: skip

    async def confirm(self, request: Request) -> HTMLResponse:
        form, _ = await self.pages.form_fields(request)
        refusal = self.pages.form_refusal(request, form)
        if refusal is not None:
            return refusal
        try:
            voter, cookie = await run_in_threadpool(self._sign_in, form.get("token", ""))
        except TokenError as error:
            return self.pages.refused(request, error)
        response = self.pages.message(request, "Signed in", f"You can vote now as {voter}.")
        max_age = int(links.max_age(self.pages.settings, links.SESSION).total_seconds())  # type: ignore[union-attr]
        response.set_cookie(
            SESSION_COOKIE, cookie, max_age=max_age, httponly=True, samesite="strict",
            secure=self.pages.secure_cookies,
        )  # fmt: skip
        return response

    def _check_link(self, token: str) -> None:
        with session_scope(self.pages.sessions) as session:
            signin.check_link(session, self.pages.settings, token, self.pages.clock())

    def _sign_in(self, token: str) -> tuple[str, str]:
        settings, now = self.pages.settings, self.pages.clock()
        with session_scope(self.pages.sessions) as session:
            voter = signin.spend_link(session, settings, token, now)
            return voter, signin.session_token(settings, session, voter, now)

    def voter(self, request: Request) -> str | None:
        cookie = request.cookies.get(SESSION_COOKIE, "")
        if not cookie:
            return None
        with session_scope(self.pages.sessions) as session:
            return signin.voter(session, self.pages.settings, cookie, self.pages.clock())

    async def upvote(self, request: Request, arxiv_id: str) -> Response:
        return await self._vote(request, arxiv_id, up=True)

    async def take_back(self, request: Request, arxiv_id: str) -> Response:
        return await self._vote(request, arxiv_id, up=False)

    async def _vote(self, request: Request, arxiv_id: str, *, up: bool) -> Response:
        if not from_this_site(request, self.pages.settings.public_base_url):
            return JSONResponse({"detail": "refused: sent from another site"}, status_code=403)
        voter = await run_in_threadpool(self.voter, request)
        if voter is None:
            return JSONResponse({"detail": "sign in to vote: /signin"}, status_code=401)
        try:
            count = await run_in_threadpool(self._record, voter, arxiv_id, up)
        except votes.UnknownPaperError:
            return JSONResponse({"detail": f"no paper {arxiv_id}"}, status_code=404)
        return JSONResponse({"arxiv_id": arxiv_id, "votes": count, "voted": up})

    def _record(self, voter: str, arxiv_id: str, up: bool) -> int:
        with session_scope(self.pages.sessions) as session:
            if up:
                return votes.cast(session, voter, arxiv_id, self.pages.clock())
            return votes.retract(session, voter, arxiv_id)


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"
