"""Signed links in emails and pages: which token each link carries and how long it works."""

from __future__ import annotations

from datetime import datetime, timedelta

from app import tokens
from app.config import Settings
from digest.messages import sender_domain

CONFIRM = "confirm"
PREFERENCES = "preferences"
UNSUBSCRIBE = "unsubscribe"
FEEDBACK = "feedback"
SIGNIN = "signin"
SESSION = "session"
SESSION_DAYS = 30


def max_age(settings: Settings, purpose: str) -> timedelta | None:
    """How long a link works; unsubscribe links never stop working for a mail that was sent."""
    if purpose == CONFIRM:
        return timedelta(hours=settings.digest_confirm_hours)
    if purpose == UNSUBSCRIBE:
        return None
    if purpose == SIGNIN:
        return timedelta(minutes=settings.digest_signin_minutes)
    if purpose == SESSION:
        return timedelta(days=SESSION_DAYS)
    return timedelta(days=settings.digest_link_days)


def url(settings: Settings, path: str, token: str) -> str:
    # A token is base64url and dots, all unreserved in a URL (RFC 3986): nothing to quote.
    return f"{settings.public_base_url.rstrip('/')}{path}?token={token}"


def confirm_url(settings: Settings, subscriber_id: int, now: datetime) -> str:
    token = tokens.issue(settings.secret_key, CONFIRM, str(subscriber_id), now)
    return url(settings, "/subscribe/confirm", token)


def preferences_url(settings: Settings, subscriber_id: int, now: datetime) -> str:
    token = tokens.issue(settings.secret_key, PREFERENCES, str(subscriber_id), now)
    return url(settings, "/subscriptions/preferences", token)


def unsubscribe_urls(settings: Settings, subscriber_id: int, now: datetime) -> tuple[str, str]:
    """The one-click HTTPS link and the mailto alternative (RFC 2369 / RFC 8058)."""
    token = tokens.issue(settings.secret_key, UNSUBSCRIBE, str(subscriber_id), now)
    mailto = f"mailto:unsubscribe@{sender_domain(settings.mail_from)}?subject=unsubscribe-{token}"
    return url(settings, "/unsubscribe", token), mailto


def feedback_url(
    settings: Settings, subscriber_id: int, arxiv_id: str, value: int, now: datetime
) -> str:
    up, down = feedback_urls(settings, subscriber_id, arxiv_id, now)
    return up if value > 0 else down


def feedback_urls(
    settings: Settings, subscriber_id: int, arxiv_id: str, now: datetime
) -> tuple[str, str]:
    """Thumbs up and down for a paper: one token (subscriber and paper), the choice beside it.

    The choice needs no signature: both links go to the same person, who may pick either.
    """
    token = tokens.issue(settings.secret_key, FEEDBACK, str(subscriber_id), now, paper=arxiv_id)
    base = url(settings, "/subscriptions/feedback", token)
    return f"{base}&value=1", f"{base}&value=-1"


def signin_url(settings: Settings, email: str, now: datetime) -> str:
    token = tokens.issue(settings.secret_key, SIGNIN, email, now)
    return url(settings, "/signin/confirm", token)
