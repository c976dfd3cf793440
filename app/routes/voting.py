"""Sign-in by email link (single use) and votes: a signed-in person upvotes a paper once.

The session is a signed cookie naming the address, sent only to this site (SameSite=Strict),
so another site cannot make a signed-in browser vote.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, Response

from app import tokens, votes
from app.db import session_scope
from app.tokens import TokenError
from digest import links
from digest.confirmation import signin_message
from digest.messages import BadAddressError, normalise_address
from digest.subscriptions import RateLimitedError, check_rate

if TYPE_CHECKING:
    from app.routes.subscriptions import Pages

SESSION_COOKIE = "paperboy_session"


def add_routes(router: APIRouter, pages: Pages) -> None:
    voting = _Voting(pages)
    router.add_api_route("/signin", voting.form, methods=["GET"])
    router.add_api_route("/signin", voting.request_link, methods=["POST"])
    router.add_api_route("/signin/confirm", voting.confirm, methods=["GET"])
    router.add_api_route("/votes/{arxiv_id}", voting.upvote, methods=["POST"])
    router.add_api_route("/votes/{arxiv_id}", voting.take_back, methods=["DELETE"])


class _Voting:
    def __init__(self, pages: Pages) -> None:
        self.pages = pages

    async def form(self, request: Request) -> HTMLResponse:
        return self.pages.with_csrf(request, "signin")

    async def request_link(self, request: Request) -> HTMLResponse:
        form, _ = await self.pages.form_fields(request)
        if not self.pages.csrf_ok(request, form):
            return self.pages.message(request, "Form expired", "Please reload the form.", 403)
        try:
            email = normalise_address(form.get("email", ""))
            await run_in_threadpool(self._count_request, email, _client(request))
        except BadAddressError as error:
            return self.pages.message(request, "Please check the form", str(error), 422)
        except RateLimitedError:
            return self.pages.message(request, "Slow down", "Please try again in an hour.", 429)
        await self.pages.send(signin_message(self.pages.settings, email, self.pages.clock()))
        text = f"A sign-in link is on its way to {email}."
        return self.pages.message(request, "Check your inbox", text)

    def _count_request(self, email: str, client: str) -> None:
        with session_scope(self.pages.sessions) as session:
            check_rate(session, self.pages.settings, f"signin:{email}", client, self.pages.clock())

    async def confirm(self, request: Request, token: str = "") -> HTMLResponse:
        settings, now = self.pages.settings, self.pages.clock()
        try:
            claims = tokens.verify(
                settings.secret_key, token, links.SIGNIN, now, links.max_age(settings, links.SIGNIN)
            )
            await run_in_threadpool(self._spend, claims)
        except TokenError as error:
            return self.pages.refused(request, error)
        response = self.pages.message(
            request, "Signed in", f"You can vote now as {claims.subject}."
        )
        session_token = tokens.issue(settings.secret_key, links.SESSION, claims.subject, now)
        max_age = int(links.max_age(settings, links.SESSION).total_seconds())  # type: ignore[union-attr]
        response.set_cookie(
            SESSION_COOKIE, session_token, max_age=max_age, httponly=True, samesite="strict",
            secure=settings.public_base_url.startswith("https"),
        )  # fmt: skip
        return response

    def _spend(self, claims: tokens.Claims) -> None:
        with session_scope(self.pages.sessions) as session:
            tokens.spend(session, claims, self.pages.clock())

    def voter(self, request: Request) -> str | None:
        settings, token = self.pages.settings, request.cookies.get(SESSION_COOKIE, "")
        try:
            max_age = links.max_age(settings, links.SESSION)
            claims = tokens.verify(
                settings.secret_key, token, links.SESSION, self.pages.clock(), max_age
            )
        except TokenError:
            return None
        return claims.subject

    async def upvote(self, request: Request, arxiv_id: str) -> Response:
        return await self._vote(request, arxiv_id, up=True)

    async def take_back(self, request: Request, arxiv_id: str) -> Response:
        return await self._vote(request, arxiv_id, up=False)

    async def _vote(self, request: Request, arxiv_id: str, *, up: bool) -> Response:
        voter = self.voter(request)
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
