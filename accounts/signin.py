"""Sign-in by email link and the session that follows: who may vote.

A sign-in link and the session cookie it leads to name an address and carry the mailbox's
:class:`SignInKey`. The key is made when the mailbox first asks for a link, which anyone can
do; the first link opened records ``signed_in_at``, the proof that the owner signed in.
Deleting the mailbox's data deletes it (``accounts.subscriptions.delete_everything``),
so every link already mailed and every browser signed in as that address stop working, and the
address starts fresh. Signing out everywhere (:func:`sign_out_everywhere`) draws a new key
instead: the same happens, and what the reader keeps stays.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from accounts import links
from app.core import tokens
from app.core.config import Settings
from app.core.models import SignInKey
from app.core.models.subscriptions import mailbox_key, new_link_key


def key_for(session: Session, email_key: str, now: datetime) -> str:
    """The mailbox's sign-in key, made on its first sign-in request."""
    row = session.get(SignInKey, email_key)
    if row is None:
        row = SignInKey(email_key=email_key, key=new_link_key(), created_at=now)
        session.add(row)
        session.flush()
    return row.key


def sign_out_everywhere(session: Session, email_key: str) -> None:
    """Every session cookie and sign-in link issued for the mailbox stops working.

    Only the key changes: the subscriber row and what hangs on it (saves, thumbs, follows,
    the subscription and its links, bound to ``Subscriber.link_key``) and votes stay.
    """
    row = session.get(SignInKey, email_key)
    if row is not None:
        row.key = new_link_key()


def spend_link(session: Session, settings: Settings, token: str, now: datetime, nonce: str) -> str:
    """Check and spend a sign-in link; the mailbox key signed in, or :class:`TokenError`.

    ``nonce`` is the CSRF nonce of the browser pressing it: a repeat moments later signs in
    as the first did from that browser only (both halves of a double click carry it), so a
    link seen in a mailbox or a proxy's log opens no session elsewhere.
    """
    claims = _checked(session, settings, token, links.SIGNIN, now)
    tokens.spend(session, claims, now, nonce)
    email_key = mailbox_key(claims.subject)
    row = session.get(SignInKey, email_key)
    assert row is not None  # _checked found it
    if row.signed_in_at is None:
        row.signed_in_at = now
    return email_key


def check_link(session: Session, settings: Settings, token: str, now: datetime) -> None:
    """Refuse a sign-in link that would be refused, without spending it (a page view)."""
    claims = _checked(session, settings, token, links.SIGNIN, now)
    tokens.spent_moments_ago(session, claims, now)  # refuses a link spent before that


def session_token(settings: Settings, session: Session, email_key: str, now: datetime) -> str:
    key = key_for(session, email_key, now)
    return tokens.issue(settings.secret_key, links.SESSION, email_key, now, key=key)


def voter(session: Session, settings: Settings, cookie: str, now: datetime) -> str | None:
    """The mailbox a session cookie signs in, or None (missing, refused, or signed out)."""
    try:
        return _checked(session, settings, cookie, links.SESSION, now).subject
    except tokens.TokenError:
        return None


def _checked(
    session: Session, settings: Settings, token: str, purpose: str, now: datetime
) -> tokens.Claims:
    claims = tokens.verify(
        settings.secret_key, token, purpose, now, links.max_age(settings, purpose)
    )
    row = session.get(SignInKey, mailbox_key(claims.subject))
    if row is None or not tokens.same_text(claims.extra.get("key", ""), row.key):
        raise tokens.TokenError("no longer valid: this address was deleted since")
    return claims
