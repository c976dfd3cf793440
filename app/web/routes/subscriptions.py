"""Subscription pages: subscribe (CSRF-protected, rate-limited, double opt-in), confirm,
preferences, one-click unsubscribe (RFC 8058), feedback from digest links, export and delete,
the privacy page.

Each handler is the edge: it opens its own session scope, commits, and only then sends mail,
after the answer has gone (so the answer's timing does not tell a new address from a known
one). Refused links (malformed, tampered, expired, used, of a deleted subscription) get a page
that says so, with status 400. Opening a mailed link never changes anything: it shows a page
whose one button POSTs with the CSRF pair (RFC 8058's one-click unsubscribe POST excepted).
Every form POST is also refused when the browser says it comes from another site.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker
from starlette.background import BackgroundTask

from app.core import tokens
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import DigestFeedback, Subscriber
from app.core.tokens import TokenError
from app.web.origin import from_this_site
from app.web.routes import voting
from digest.accounts import links, subscriptions
from digest.accounts.addresses import Address, BadAddressError, parse_address
from digest.accounts.preferences import BadPreferencesError, Preferences, parse_preferences
from digest.mail.confirmation import confirmation_message
from digest.mail.mailer import send_one
from digest.mail.messages import OutgoingMail
from digest.mail.render import TEMPLATES

log = logging.getLogger(__name__)
CSRF_COOKIE = "paperboy_csrf"
Clock = Callable[[], datetime]


def make_router(
    settings: Settings, sessions: sessionmaker[Session], clock: Clock | None = None
) -> APIRouter:
    """The subscription pages, bound to one deployment's settings, sessions and clock."""
    pages = Pages(settings, sessions, clock or (lambda: datetime.now(UTC)))
    router = APIRouter(include_in_schema=False)
    router.add_api_route("/subscribe", pages.form, methods=["GET"])
    router.add_api_route("/subscribe", pages.subscribe, methods=["POST"])
    router.add_api_route("/subscribe/confirm", pages.confirm_page, methods=["GET"])
    router.add_api_route("/subscribe/confirm", pages.confirm, methods=["POST"])
    router.add_api_route("/subscriptions/preferences", pages.preferences, methods=["GET"])
    router.add_api_route("/subscriptions/preferences", pages.save, methods=["POST"])
    router.add_api_route("/subscriptions/feedback", pages.feedback_page, methods=["GET"])
    router.add_api_route("/subscriptions/feedback", pages.feedback, methods=["POST"])
    router.add_api_route("/subscriptions/export", pages.export, methods=["GET"])
    router.add_api_route("/subscriptions/delete", pages.delete, methods=["POST"])
    router.add_api_route("/unsubscribe", pages.unsubscribe_page, methods=["GET"])
    router.add_api_route("/unsubscribe", pages.unsubscribe, methods=["POST"])
    router.add_api_route("/privacy", pages.privacy, methods=["GET"])
    voting.add_routes(router, pages)
    return router


class Pages:
    def __init__(self, settings: Settings, sessions: sessionmaker[Session], clock: Clock) -> None:
        self.settings, self.sessions, self.clock = settings, sessions, clock
        self.templates = Jinja2Templates(directory=str(TEMPLATES))

    def page(self, request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("default_categories", self.settings.categories)
        return self.templates.TemplateResponse(
            request, f"subscriptions/{name}.html", context, status_code=status
        )

    def message(self, request: Request, title: str, text: str, status: int = 200) -> HTMLResponse:
        return self.page(request, "message", status, title=title, text=text)

    def refused(self, request: Request, error: TokenError) -> HTMLResponse:
        text = f"This link is {error.reason.replace('-', ' ')}. Nothing was changed."
        if error.reason == "expired":
            text += " Ask for a new one by subscribing again or from your latest digest."
        return self.message(request, "This link does not work", text, status=400)

    def cross_site(self, request: Request) -> HTMLResponse:
        text = "This form was sent from another site. Nothing was changed."
        return self.message(request, "Refused", text, status=403)

    async def form(self, request: Request) -> HTMLResponse:
        return self.with_csrf(request, "subscribe", max_items=self.settings.digest_max_items)

    def with_csrf(self, request: Request, name: str, **context: Any) -> HTMLResponse:
        """A page with a form, and the cookie its CSRF field is checked against."""
        nonce = secrets.token_urlsafe(16)
        response = self.page(request, name, csrf=self.csrf(nonce), **context)
        response.set_cookie(
            CSRF_COOKIE, nonce, httponly=True, samesite="strict", secure=self.secure_cookies
        )
        return response

    @property
    def secure_cookies(self) -> bool:
        """Cookies only over HTTPS in production, or wherever the site is served over HTTPS."""
        return self.settings.env == "production" or self.settings.public_base_url.startswith(
            "https"
        )

    def action_page(self, request: Request, action: str, token: str, **context: Any) -> Response:
        """The page a mailed link opens: what the link offers, and one button that does it."""
        context.setdefault("fields", {})
        return self.with_csrf(request, "action", action=action, token=token, **context)

    def csrf(self, nonce: str) -> str:
        key = self.settings.secret_key.encode()
        return hmac.new(key, f"csrf:{nonce}".encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, request: Request, form: dict[str, str]) -> bool:
        nonce = request.cookies.get(CSRF_COOKIE, "")
        if not nonce or not nonce.isascii():
            return False
        return tokens.same_text(form.get("csrf", ""), self.csrf(nonce))

    def form_refusal(self, request: Request, form: dict[str, str]) -> HTMLResponse | None:
        """Why a browser form POST is refused (another site, no CSRF pair), or None."""
        if not from_this_site(request, self.settings.public_base_url):
            return self.cross_site(request)
        if not self.csrf_ok(request, form):
            status = 400 if not form.get("csrf", "").isascii() else 403
            return self.message(request, "Form expired", "Please reload the form.", status)
        return None

    async def subscribe(self, request: Request) -> HTMLResponse:
        form, categories = await self.form_fields(request)
        refusal = self.form_refusal(request, form)
        if refusal is not None:
            return refusal
        try:
            address = parse_address(form.get("email", ""))
            preferences = parse_preferences(form, categories or list(self.settings.categories))
        except (BadAddressError, BadPreferencesError) as error:
            return self.message(request, "Please check the form", str(error), 422)
        client = request.client.host if request.client else "unknown"
        try:
            pending = await run_in_threadpool(self._subscribe, address, preferences, client)
        except subscriptions.RateLimitedError:
            text = "Too many requests just now; please try again in an hour."
            return self.message(request, "Slow down", text, 429)
        # The same answer for a new, pending or active address: no address enumeration.
        response = self.page(request, "check_inbox", email=address.delivery)
        if pending is not None:
            response.background = BackgroundTask(self.send_confirmation, *pending)
        return response

    def _subscribe(
        self, address: Address, preferences: Preferences, client: str
    ) -> tuple[int, OutgoingMail] | None:
        now = self.clock()
        with session_scope(self.sessions) as session:
            subscriber = subscriptions.request_subscription(
                session, self.settings, address, preferences, client, now
            )
            if subscriber is None:
                return None
            return subscriber.id, confirmation_message(self.settings, subscriber, now)

    async def send_confirmation(self, subscriber_id: int, message: OutgoingMail) -> None:
        """Send after the answer; a failure is recorded on the row (asking again resends)."""
        problem = await self.send(message)
        if problem is not None:
            await run_in_threadpool(self._record_send_failure, subscriber_id, problem)

    async def send(self, message: OutgoingMail) -> str | None:
        """Send one mail; what went wrong, in words, or None when it was sent."""
        try:
            await send_one(self.settings, message)
        except Exception as error:
            log.warning("mail to a reader not sent: %s: %s", type(error).__name__, error)
            return f"{type(error).__name__}: {error}"
        return None

    def _record_send_failure(self, subscriber_id: int, problem: str) -> None:
        with session_scope(self.sessions) as session:
            subscriber = session.get(Subscriber, subscriber_id)
            if subscriber is not None:
                subscriber.last_failure = f"confirmation not sent: {problem}"[:2000]

    async def confirm_page(self, request: Request, token: str = "") -> Response:
        try:
            await run_in_threadpool(self._in_session, subscriptions.check_confirmation, token)
        except TokenError as error:
            return self.refused(request, error)
        return self.action_page(
            request, "/subscribe/confirm", token, title="Confirm your subscription",
            text="One more step: confirm that you want Paperboy's digest.",
            button="Confirm my subscription",
        )  # fmt: skip

    async def confirm(self, request: Request) -> HTMLResponse:
        form, _ = await self.form_fields(request)
        refusal = self.form_refusal(request, form)
        if refusal is not None:
            return refusal
        try:
            await run_in_threadpool(self._confirm, form.get("token", ""))
        except TokenError as error:
            return self.refused(request, error)
        text = "Your subscription is confirmed. Your first digest comes with the next edition."
        return self.message(request, "Subscribed", text)

    def _confirm(self, token: str) -> None:
        self._in_session(subscriptions.confirm, token)

    def _in_session(
        self, step: Callable[[Session, Settings, str, datetime], object], token: str
    ) -> None:
        with session_scope(self.sessions) as session:
            step(session, self.settings, token, self.clock())

    def _with_subscriber(self, token: str, purpose: str, change: Callable[..., Any]) -> Any:
        with session_scope(self.sessions) as session:
            subscriber = subscriptions.subscriber_for(
                session, self.settings, token, purpose, self.clock()
            )
            return change(session, subscriber)

    async def preferences(self, request: Request, token: str = "") -> HTMLResponse:
        try:
            subscriber = await run_in_threadpool(
                self._with_subscriber, token, links.PREFERENCES, lambda _s, sub: sub
            )
        except TokenError as error:
            return self.refused(request, error)
        unsubscribe_url, _ = links.unsubscribe_urls(self.settings, subscriber, self.clock())
        return self.page(
            request, "preferences", subscriber=subscriber, token=token, unsubscribe=unsubscribe_url
        )

    async def save(self, request: Request) -> HTMLResponse:
        form, categories = await self.form_fields(request)
        if not from_this_site(request, self.settings.public_base_url):
            return self.cross_site(request)
        token = form.get("token", "")
        try:
            preferences = parse_preferences(form, categories)
            action = form.get("action", "save")
            await run_in_threadpool(
                self._with_subscriber, token, links.PREFERENCES, _saver(preferences, action)
            )
        except TokenError as error:
            return self.refused(request, error)
        except BadPreferencesError as error:
            return self.message(request, "Please check the form", str(error), 422)
        return self.message(request, "Saved", "Your preferences are saved.")

    async def feedback_page(self, request: Request, token: str = "", value: str = "") -> Response:
        if value not in ("1", "-1"):
            return self.message(request, "This link does not work", "Unknown choice.", 400)
        try:
            await run_in_threadpool(self._with_subscriber, token, links.FEEDBACK, _read_only)
        except TokenError as error:
            return self.refused(request, error)
        more = "more" if value == "1" else "fewer"
        return self.action_page(
            request, "/subscriptions/feedback", token, fields={"value": value},
            title="Tune your digest", text=f"Send you {more} papers like this one?",
            button=f"Yes, {more} like this",
        )  # fmt: skip

    async def feedback(self, request: Request) -> HTMLResponse:
        form, _ = await self.form_fields(request)
        refusal = self.form_refusal(request, form)
        if refusal is not None:
            return refusal
        value = form.get("value", "")
        if value not in ("1", "-1"):
            return self.message(request, "This link does not work", "Unknown choice.", 400)
        try:
            liked = await run_in_threadpool(self._feedback, form.get("token", ""), int(value))
        except TokenError as error:
            return self.refused(request, error)
        more = "more" if liked else "fewer"
        return self.message(request, "Thanks", f"Your next digests will have {more} like it.")

    def _feedback(self, token: str, value: int) -> bool:
        now = self.clock()
        max_age = links.max_age(self.settings, links.FEEDBACK)
        paper = tokens.verify(self.settings.secret_key, token, links.FEEDBACK, now, max_age).extra
        with session_scope(self.sessions) as session:
            subscriber = subscriptions.subscriber_for(
                session, self.settings, token, links.FEEDBACK, now
            )
            subscriptions.record_feedback(session, subscriber, paper.get("paper", ""), value, now)
        return value > 0

    async def unsubscribe_page(self, request: Request, token: str = "") -> Response:
        try:
            await run_in_threadpool(self._with_subscriber, token, links.UNSUBSCRIBE, _read_only)
        except TokenError as error:
            return self.refused(request, error)
        return self.with_csrf(request, "unsubscribe", token=token)

    async def unsubscribe(self, request: Request, token: str = "") -> HTMLResponse:
        """RFC 8058 one-click: a POST to the link unsubscribes, with no confirmation page.

        No CSRF pair or origin check here: the mail provider posts it, and the link's own
        token (bound to this subscription) is what authorises it.
        """
        if not token:
            form, _ = await self.form_fields(request)
            token = form.get("token", "")
        now = self.clock()
        try:
            await run_in_threadpool(
                self._with_subscriber,
                token,
                links.UNSUBSCRIBE,
                lambda _s, sub: subscriptions.unsubscribe(sub, now),
            )
        except TokenError as error:
            return self.refused(request, error)
        text = "You will get no more digests. You can subscribe again at any time."
        return self.message(request, "Unsubscribed", text)

    async def export(self, request: Request, token: str = "") -> Response:
        try:
            data = await run_in_threadpool(self._with_subscriber, token, links.PREFERENCES, _export)
        except TokenError as error:
            return self.refused(request, error)
        headers = {"Content-Disposition": 'attachment; filename="paperboy-data.json"'}
        return Response(json.dumps(data, indent=2), media_type="application/json", headers=headers)

    async def delete(self, request: Request) -> HTMLResponse:
        form, _ = await self.form_fields(request)
        if not from_this_site(request, self.settings.public_base_url):
            return self.cross_site(request)
        try:
            await run_in_threadpool(
                self._with_subscriber,
                form.get("token", ""),
                links.PREFERENCES,
                subscriptions.delete_everything,
            )
        except TokenError as error:
            return self.refused(request, error)
        return self.message(request, "Deleted", "Everything Paperboy held about you is deleted.")

    async def privacy(self, request: Request) -> HTMLResponse:
        return self.page(request, "privacy")

    @staticmethod
    async def form_fields(request: Request) -> tuple[dict[str, str], list[str]]:
        data = await request.form()
        fields = {key: value for key, value in data.items() if isinstance(value, str)}
        categories = [value for value in data.getlist("categories") if isinstance(value, str)]
        return fields, categories


def _read_only(_session: Session, subscriber: Subscriber) -> Subscriber:
    return subscriber


def _saver(preferences: Preferences, action: str) -> Callable[[Session, Subscriber], None]:
    def save(_session: Session, subscriber: Subscriber) -> None:
        subscriptions.apply_preferences(subscriber, preferences)
        if action == "pause" and subscriber.status == "active":
            subscriber.status = "paused"
        elif action == "resume" and subscriber.status == "paused":
            subscriber.status, subscriber.failure_count = "active", 0

    return save


def _export(session: Session, subscriber: Subscriber) -> dict[str, Any]:
    columns = Subscriber.__table__.columns.keys()
    data = {name: _plain(getattr(subscriber, name)) for name in columns}
    feedback = session.scalars(
        select(DigestFeedback).where(DigestFeedback.subscriber_id == subscriber.id)
    )
    data["feedback"] = [{"arxiv_id": row.arxiv_id, "value": row.value} for row in feedback]
    return data


def _plain(value: object) -> object:
    return value.isoformat() if isinstance(value, datetime) else value
