"""Mails answering a request from the site: the confirmation of double opt-in (with the note
to an address already known, the only mails an unconfirmed address ever gets) and the sign-in
link, and an invitation to co-edit a shared list."""

from __future__ import annotations

from datetime import datetime

from accounts import links
from app.core.config import Settings
from app.core.models import Subscriber, SubscriberStatus
from digest.mail.messages import Envelope, OutgoingMail, build_message, render_email


def confirmation_message(settings: Settings, subscriber: Subscriber, now: datetime) -> OutgoingMail:
    context = {
        "email": subscriber.email,
        "confirm_url": links.confirm_url(settings, subscriber, now),
        "hours": settings.digest_confirm_hours,
    }
    envelope = Envelope(settings.mail_from, subscriber.email, now)
    return build_message(envelope, render_email("confirm", context))


# What a request for a known address can start: nothing for a running or paused digest.
_STARTS = {
    SubscriberStatus.PENDING: "pending",
    SubscriberStatus.WEB: "web",
    SubscriberStatus.UNSUBSCRIBED: "ended",
}


def known_address_message(
    settings: Settings, subscriber: Subscriber, now: datetime
) -> OutgoingMail:
    """The note to an address someone asked to subscribe again: nothing was changed, and the
    links to confirm (a subscription not running) or to change the preferences (one still
    valid after confirming: an ended one's links are drawn anew)."""
    state = _STARTS.get(subscriber.status, "receiving")
    context = {
        "email": subscriber.email,
        "state": state,
        "confirm_url": links.confirm_url(settings, subscriber, now) if state != "receiving" else "",
        "preferences_url": links.preferences_url(settings, subscriber, now)
        if state != "ended"
        else "",
        "hours": settings.digest_confirm_hours,
        "paused": subscriber.status == SubscriberStatus.PAUSED,
    }
    envelope = Envelope(settings.mail_from, subscriber.email, now)
    return build_message(envelope, render_email("known_address", context))


def signin_message(settings: Settings, email: str, key: str, now: datetime) -> OutgoingMail:
    """The sign-in link for ``email``, bound to its mailbox's sign-in ``key``."""
    context = {
        "email": email,
        "signin_url": links.signin_url(settings, email, key, now),
        "minutes": settings.digest_signin_minutes,
    }
    return build_message(Envelope(settings.mail_from, email, now), render_email("signin", context))


def list_invitation_message(
    settings: Settings, email: str, invitation: tuple[int, str], title: str, now: datetime
) -> OutgoingMail:
    """The invitation to co-edit the list ``title`` (list id, invite key), for ``email``."""
    context = {
        "email": email,
        "title": title,
        "invitation_url": links.list_invitation_url(settings, email, invitation, now),
        "days": links.LIST_INVITE_DAYS,
    }
    envelope = Envelope(settings.mail_from, email, now)
    return build_message(envelope, render_email("list_invitation", context))
