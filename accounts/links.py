"""Signed links in emails and pages: which token each link carries and how long it works; and
the mail sent to a digest's ``mailto:`` unsubscribe address, read for its token.

A subscriber's link names the subscriber's id and carries its ``link_key``: a link acts only
on the subscription it was made for, never on a later row (see ``Subscriber``). Sign-in links
and session cookies name the address and carry the address's :class:`SignInKey`.

Every link in a mail is safe to open: following it shows a page whose one button does what
the link offers (the RFC 8058 one-click unsubscribe POST excepted), so a mail scanner that
opens every link changes nothing.

Mail to a digest's ``mailto:`` unsubscribe address (RFC 2369) is read from a pipe: a mail
client that uses the ``List-Unsubscribe`` mailto sends an empty mail whose subject is
``unsubscribe-TOKEN``; the mail server hands it to ``paperboy unsubscribe-mail`` (a pipe alias).
Here the token is only found (pure); the command checks it and unsubscribes.
"""

from __future__ import annotations

import email
import email.policy
import re
from datetime import datetime, timedelta
from email.utils import parseaddr
from typing import NamedTuple, Protocol

from app.core import tokens
from app.core.config import Settings

CONFIRM = "confirm"
PREFERENCES = "preferences"
UNSUBSCRIBE = "unsubscribe"
FEEDBACK = "feedback"
SIGNIN = "signin"
SESSION = "session"
SESSION_DAYS = 30
LIST_INVITE = "list-invite"
LIST_INVITE_DAYS = 7
# One kind of mail about discussions turned off (``mail``: replies or papers); such a link
# lives as long as a preferences link, so an old mail's link ends with a clear refusal.
COMMENT_MAIL_OFF = "comment-mail-off"


class UnsubscribeLinks(NamedTuple):
    """A digest's ``List-Unsubscribe`` targets: the one-click HTTPS link and the mailto one."""

    https: str
    mailto: str


def sender_domain(sender: str) -> str:
    """The domain of the ``From`` address, which the mailto link and Message-IDs name."""
    return parseaddr(sender)[1].rpartition("@")[2] or "localhost"


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
    if purpose == LIST_INVITE:
        return timedelta(days=LIST_INVITE_DAYS)
    return timedelta(days=settings.digest_link_days)


class LinkHolder(Protocol):
    """A subscriber, stored or as read for a digest: what its links are bound to."""

    @property
    def id(self) -> int: ...

    @property
    def link_key(self) -> str: ...


def subscriber_token(
    settings: Settings, purpose: str, holder: LinkHolder, now: datetime, **extra: str
) -> str:
    return tokens.issue(
        settings.secret_key, purpose, str(holder.id), now, key=holder.link_key, **extra
    )


def url(settings: Settings, path: str, token: str) -> str:
    # A token is base64url and dots, all unreserved in a URL (RFC 3986): nothing to quote.
    return f"{settings.public_base_url.rstrip('/')}{path}?token={token}"


def confirm_url(settings: Settings, holder: LinkHolder, now: datetime) -> str:
    return url(settings, "/subscribe/confirm", subscriber_token(settings, CONFIRM, holder, now))


def preferences_url(settings: Settings, holder: LinkHolder, now: datetime) -> str:
    token = subscriber_token(settings, PREFERENCES, holder, now)
    return url(settings, "/subscriptions/preferences", token)


def unsubscribe_urls(settings: Settings, holder: LinkHolder, now: datetime) -> UnsubscribeLinks:
    """The one-click HTTPS link and the mailto alternative (RFC 2369 / RFC 8058)."""
    token = subscriber_token(settings, UNSUBSCRIBE, holder, now)
    mailto = f"mailto:unsubscribe@{sender_domain(settings.mail_from)}?subject=unsubscribe-{token}"
    return UnsubscribeLinks(https=url(settings, "/unsubscribe", token), mailto=mailto)


def comment_mail_off_urls(
    settings: Settings, holder: LinkHolder, kind: str, now: datetime
) -> UnsubscribeLinks:
    """The one-click HTTPS link and the mailto alternative that turn off one kind of mail
    about discussions (the mailto goes where a digest's does, read by the same command)."""
    token = subscriber_token(settings, COMMENT_MAIL_OFF, holder, now, mail=kind)
    mailto = f"mailto:unsubscribe@{sender_domain(settings.mail_from)}?subject=unsubscribe-{token}"
    return UnsubscribeLinks(https=url(settings, "/comments/mail-off", token), mailto=mailto)


def feedback_url(settings: Settings, holder: LinkHolder, arxiv_id: str, now: datetime) -> str:
    """One link per paper, to a page offering both choices (more like this, less like this).

    One short link rather than one per choice keeps the plain-text part readable; the token
    names the subscriber and the paper, and the page's buttons send the choice with it.
    """
    token = subscriber_token(settings, FEEDBACK, holder, now, paper=arxiv_id)
    return url(settings, "/subscriptions/feedback", token)


def signin_url(settings: Settings, email: str, key: str, now: datetime) -> str:
    """A sign-in link for ``email`` (as typed), bound to its mailbox's current sign-in key."""
    token = tokens.issue(settings.secret_key, SIGNIN, email, now, key=key)
    return url(settings, "/signin/confirm", token)


def list_invitation_url(
    settings: Settings, email_key: str, invitation: tuple[int, str], now: datetime
) -> str:
    """The link inviting ``email_key`` to co-edit a shared list: the list's id and the
    invitation's key (a new invitation of the address voids it)."""
    list_id, key = invitation
    token = tokens.issue(
        settings.secret_key, LIST_INVITE, email_key, now, list=str(list_id), key=key
    )
    return url(settings, "/lists/invitation", token)


# Inbound mail is read up to this size: an unsubscribe request is a few hundred bytes.
MAX_MESSAGE_BYTES = 1_000_000
_TOKEN = re.compile(r"\bunsubscribe-([A-Za-z0-9_.\-]+)", re.IGNORECASE)


class InboundMailError(ValueError):
    """The mail is not an unsubscribe request Paperboy can read; the message says why."""


def unsubscribe_token(raw: bytes) -> str:
    """The token in the subject of an unsubscribe mail (a reply's ``Re:`` and the like allowed)."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise InboundMailError(f"mail larger than {MAX_MESSAGE_BYTES} bytes")
    message = email.message_from_bytes(raw, policy=email.policy.default)
    subject = str(message.get("Subject", ""))
    found = _TOKEN.search(subject)
    if found is None:
        raise InboundMailError("no unsubscribe-TOKEN in the subject")
    return found[1]
