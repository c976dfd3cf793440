"""Mails with one link: the confirmation of double opt-in (the only mail an unconfirmed
address ever gets) and the sign-in link for voting."""

from __future__ import annotations

from datetime import datetime

from app.core.config import Settings
from app.core.models import Subscriber
from digest.accounts import links
from digest.mail.messages import Envelope, OutgoingMail, build_message
from digest.mail.render import render_email


def confirmation_message(settings: Settings, subscriber: Subscriber, now: datetime) -> OutgoingMail:
    context = {
        "email": subscriber.email,
        "confirm_url": links.confirm_url(settings, subscriber, now),
        "hours": settings.digest_confirm_hours,
    }
    envelope = Envelope(settings.mail_from, subscriber.email, now)
    return build_message(envelope, render_email("confirm", context))


def signin_message(settings: Settings, email: str, key: str, now: datetime) -> OutgoingMail:
    """The sign-in link for ``email``, bound to its mailbox's sign-in ``key``."""
    context = {
        "email": email,
        "signin_url": links.signin_url(settings, email, key, now),
        "minutes": settings.digest_signin_minutes,
    }
    return build_message(Envelope(settings.mail_from, email, now), render_email("signin", context))
