"""Subscribing, confirming, changing preferences and leaving: the stored side of consent.

Double opt-in: a new address is stored ``pending`` and gets one confirmation mail; only a
confirmed (``active``) subscriber is ever sent a digest. The caller commits; mail goes out
after the commit.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from accounts import discussion, links
from accounts.addresses import Address
from accounts.preferences import Preferences
from accounts.reader import keeping_follows, put_feedback
from app.core import tokens
from app.core.config import Settings
from app.core.models import (
    SignInKey,
    SubscribeAttempt,
    Subscriber,
    SubscriberStatus,
    Vote,
)
from app.core.models.subscriptions import new_link_key
from app.core.refusals import Limited

RATE_WINDOW = timedelta(hours=1)
# A confirmed subscription, running or paused: asking again changes nothing.
RECEIVING = frozenset({SubscriberStatus.ACTIVE, SubscriberStatus.PAUSED})


class RateLimitedError(Limited):
    """Too many subscribe requests for an address or from a client in the last hour."""


GONE = "no longer valid: the subscription it was sent for was deleted or started again"


def request_subscription(
    session: Session,
    settings: Settings,
    address: Address,
    preferences: Preferences,
    client: str,
    now: datetime,
    *,
    holder: str | None = None,
) -> Subscriber | None:
    """Record a request; the subscriber to send a confirmation to, or None (address known).

    Anyone can type an address, so a request changes a row already stored only when it comes
    from ``holder``, the mailbox a signed-in session proves (its sign-in link was mailed
    there), and never an active or paused one. Otherwise nothing is changed and the caller
    mails the address's owner (:func:`digest.mail.confirmation.known_address_message`), whose
    links act. The caller answers the same whatever this returns, so an address cannot be
    probed. An address that had unsubscribed starts a new subscription: links of the old one
    stop working.
    """
    check_rate(session, settings, f"email:{address.key}", client, now)
    subscriber = find_subscriber(session, address.key)
    if subscriber is None:
        subscriber = Subscriber(email_key=address.key, created_at=now, link_key=new_link_key())
        session.add(subscriber)
    elif holder != address.key or subscriber.status in RECEIVING:
        return None
    else:
        # The owner, signed in: what they followed and muted stays, the form's lists join it.
        preferences = keeping_follows(subscriber, preferences)
        if subscriber.status != SubscriberStatus.PENDING:
            _start_again(subscriber, now)
    subscriber.email = address.delivery
    apply_preferences(subscriber, preferences)
    subscriber.status = SubscriberStatus.PENDING
    session.flush()
    return subscriber


def _start_again(subscriber: Subscriber, now: datetime) -> None:
    """A web reader's or an ended subscription starts: the week to confirm counts from now.

    An ended one gets a new link key, so the links mailed for it stop working.
    """
    if subscriber.status == SubscriberStatus.UNSUBSCRIBED:
        subscriber.link_key = new_link_key()
    subscriber.created_at = now


def find_subscriber(session: Session, email_key: str) -> Subscriber | None:
    return session.scalars(select(Subscriber).where(Subscriber.email_key == email_key)).first()


def confirm(session: Session, settings: Settings, token: str, now: datetime) -> None:
    """Spend a confirmation token and activate its subscriber; :class:`TokenError` if refused.

    The link may be one mailed to a web reader or an ended subscription that someone asked to
    subscribe (:func:`request_subscription` changed nothing): it starts the digest with the
    preferences stored. Pressed again moments later (a double click), it does nothing again.
    """
    claims = _verified(settings, token, links.CONFIRM, now)
    if not tokens.spend(session, claims, now):
        # Before the binding check: the first press may have given an ended subscription
        # a new link key, which this link no longer carries.
        return
    subscriber = _bound_subscriber(session, claims)
    if subscriber.status in RECEIVING:
        return  # confirmed by another of its links: a paused digest stays paused
    if subscriber.status != SubscriberStatus.PENDING:
        _start_again(subscriber, now)
    subscriber.status = SubscriberStatus.ACTIVE
    # The first proof of the mailbox stays: votes are weighed by it, and must never change.
    if subscriber.confirmed_at is None:
        subscriber.confirmed_at = now
    subscriber.failure_count = 0


def check_confirmation(session: Session, settings: Settings, token: str, now: datetime) -> None:
    """Refuse a confirmation link that would be refused, without spending it (a page view)."""
    claims = _verified(settings, token, links.CONFIRM, now)
    if not tokens.spent_moments_ago(session, claims, now):
        _bound_subscriber(session, claims)


def subscriber_for(
    session: Session, settings: Settings, token: str, purpose: str, now: datetime
) -> Subscriber:
    """The subscriber a signed link is about; :class:`TokenError` if refused or gone."""
    return _link(session, settings, token, purpose, now)[1]


def _link(
    session: Session, settings: Settings, token: str, purpose: str, now: datetime
) -> tuple[tokens.Claims, Subscriber]:
    claims = _verified(settings, token, purpose, now)
    return claims, _bound_subscriber(session, claims)


def _verified(settings: Settings, token: str, purpose: str, now: datetime) -> tokens.Claims:
    return tokens.verify(settings.secret_key, token, purpose, now, links.max_age(settings, purpose))


def _bound_subscriber(session: Session, claims: tokens.Claims) -> Subscriber:
    subscriber = session.get(Subscriber, _subscriber_id(claims))
    if subscriber is None or not _bound_to(claims, subscriber):
        raise tokens.TokenError(GONE)
    return subscriber


def _subscriber_id(claims: tokens.Claims) -> int:
    if not (claims.subject.isascii() and claims.subject.isdigit()) or len(claims.subject) > 18:
        raise tokens.TokenError("malformed")
    return int(claims.subject)


def _bound_to(claims: tokens.Claims, subscriber: Subscriber) -> bool:
    """Whether a link was made for this very subscription.

    Links mailed before links carried a key name only the id: such a link is taken only if
    it was issued after the row was made (a link of an earlier row with the same id is older).
    """
    key = claims.extra.get("key")
    if key is None:
        return claims.issued_at >= int(subscriber.created_at.timestamp())
    return tokens.same_text(key, subscriber.link_key)


def delete_everything(session: Session, subscriber: Subscriber) -> None:
    """Delete a subscriber and all Paperboy holds about that mailbox (votes, sign-in key).

    Every link mailed to them and every signed-in session of the address stop working; their
    comments keep their places as a deleted reader's, without text.
    """
    email_key = subscriber.email_key
    discussion.forget_author(session, subscriber.id)
    session.execute(delete(Vote).where(Vote.voter == email_key))
    session.execute(delete(SignInKey).where(SignInKey.email_key == email_key))
    session.delete(subscriber)


def unsubscribe(subscriber: Subscriber, now: datetime) -> None:
    if subscriber.status != SubscriberStatus.UNSUBSCRIBED:
        subscriber.status, subscriber.unsubscribed_at = SubscriberStatus.UNSUBSCRIBED, now


def apply_preferences(subscriber: Subscriber, preferences: Preferences) -> None:
    for name, value in asdict(preferences).items():
        setattr(subscriber, name, value)


def feedback_paper(session: Session, settings: Settings, token: str, now: datetime) -> str:
    """The paper a feedback link is about, the link checked as its button's POST will be."""
    claims, _subscriber = _link(session, settings, token, links.FEEDBACK, now)
    return claims.extra.get("paper", "")


def record_feedback(
    session: Session, settings: Settings, token: str, value: int, now: datetime
) -> None:
    """A thumbs up (1) or down (-1) from a feedback link, on the paper signed into it."""
    claims, subscriber = _link(session, settings, token, links.FEEDBACK, now)
    put_feedback(session, subscriber.id, claims.extra.get("paper", ""), value, now)


def purge_unconfirmed(session: Session, settings: Settings, now: datetime) -> int:
    """Delete sign-ups never confirmed within ``digest_unconfirmed_days``; returns how many.

    A mailbox whose owner signed in on the site (opened a sign-in link: ``signed_in_at``) may
    hold their reading list and thumbs: its unconfirmed sign-up goes back to a reader of the
    site (``web``) instead, data kept. A sign-in link merely asked for proves nothing (anyone
    can ask one for any address), so it keeps nothing.
    """
    cutoff = now - timedelta(days=settings.digest_unconfirmed_days)
    unconfirmed = (
        Subscriber.status == SubscriberStatus.PENDING,
        Subscriber.confirmed_at.is_(None),
        Subscriber.created_at < cutoff,
    )
    signed_in = Subscriber.email_key.in_(
        select(SignInKey.email_key).where(SignInKey.signed_in_at.is_not(None))
    )
    session.execute(
        update(Subscriber).where(*unconfirmed, signed_in).values(status=SubscriberStatus.WEB)
    )
    result = session.execute(delete(Subscriber).where(*unconfirmed))
    session.execute(
        delete(SubscribeAttempt).where(SubscribeAttempt.attempted_at < now - RATE_WINDOW)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def check_rate(session: Session, settings: Settings, key: str, client: str, now: datetime) -> None:
    """Count a request for ``key`` (an address) and ``client``; refuse one over the limits.

    Recording the request and counting the hour's requests are one step, so that requests
    arriving together cannot all count the same room. On PostgreSQL each key's advisory lock,
    held until the transaction ends, lets one request at a time count and record it. On SQLite
    the request is recorded first: that write takes the database's one write lock, held until
    the transaction ends, so the count that follows sees every request recorded before it and
    none recorded after. Either way two requests for one address then store its subscriber
    one after the other. A refused request is rolled back with its caller's transaction.
    """
    limits = {
        key: settings.digest_rate_per_address,
        f"client:{client}": settings.digest_rate_per_client,
    }
    _lock_keys(session, sorted(limits))
    session.add_all(SubscribeAttempt(key=name, attempted_at=now) for name in limits)
    session.flush()
    for name, limit in limits.items():
        if _attempts(session, name, now) > limit:
            raise RateLimitedError(name.partition(":")[0])


def _attempts(session: Session, key: str, now: datetime) -> int:
    """Requests recorded for ``key`` in the hour up to ``now``, this one's included."""
    count = session.scalar(
        select(func.count()).where(
            SubscribeAttempt.key == key, SubscribeAttempt.attempted_at > now - RATE_WINDOW
        )
    )
    return count or 0


def _lock_keys(session: Session, keys: list[str]) -> None:
    """PostgreSQL: wait for each key's transaction-scoped advisory lock, in ``keys``' order
    (every caller sorts them, so two requests never wait for each other's second key)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    for key in keys:
        session.execute(select(func.pg_advisory_xact_lock(_lock_number(key))))


def _lock_number(key: str) -> int:
    """The key as an advisory lock's number (a shared number only makes two keys wait)."""
    digest = hashlib.blake2b(key.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)
