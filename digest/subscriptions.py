"""Subscribing, confirming, changing preferences and leaving: the stored side of consent.

Double opt-in: a new address is stored ``pending`` and gets one confirmation mail; only a
confirmed (``active``) subscriber is ever sent a digest. The caller commits; mail goes out
after the commit.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app import tokens
from app.config import Settings
from app.models import DigestFeedback, SubscribeAttempt, Subscriber
from digest import links
from digest.preferences import Preferences

RATE_WINDOW = timedelta(hours=1)


class RateLimitedError(Exception):
    """Too many subscribe requests for an address or from a client in the last hour."""


def request_subscription(
    session: Session, settings: Settings, email: str, preferences: Preferences, client: str,
    now: datetime,
) -> Subscriber | None:  # fmt: skip
    """Record a request; the subscriber to send a confirmation to, or None (already active).

    The caller answers the same whatever this returns, so an address cannot be probed.
    """
    check_rate(session, settings, f"email:{email}", client, now)
    subscriber = session.scalars(select(Subscriber).where(Subscriber.email == email)).first()
    if subscriber is not None and subscriber.status in ("active", "paused"):
        return None
    if subscriber is None:
        subscriber = Subscriber(email=email, created_at=now)
        session.add(subscriber)
    apply_preferences(subscriber, preferences)
    subscriber.status = "pending"
    session.flush()
    return subscriber


def confirm(session: Session, settings: Settings, token: str, now: datetime) -> Subscriber:
    """Spend a confirmation token and activate its subscriber; :class:`TokenError` if refused."""
    claims = tokens.verify(
        settings.secret_key, token, links.CONFIRM, now, links.max_age(settings, links.CONFIRM)
    )
    subscriber = session.get(Subscriber, int(claims.subject))
    if subscriber is None:
        raise tokens.TokenError("no longer valid")
    tokens.spend(session, claims, now)
    subscriber.status, subscriber.confirmed_at = "active", now
    subscriber.failure_count = 0
    return subscriber


def subscriber_for(
    session: Session, settings: Settings, token: str, purpose: str, now: datetime
) -> Subscriber:
    """The subscriber a signed link is about; :class:`TokenError` if refused or gone."""
    claims = tokens.verify(
        settings.secret_key, token, purpose, now, links.max_age(settings, purpose)
    )
    subscriber = session.get(Subscriber, int(claims.subject))
    if subscriber is None:
        raise tokens.TokenError("no longer valid: this subscription was deleted")
    return subscriber


def unsubscribe(subscriber: Subscriber, now: datetime) -> None:
    if subscriber.status != "unsubscribed":
        subscriber.status, subscriber.unsubscribed_at = "unsubscribed", now


def apply_preferences(subscriber: Subscriber, preferences: Preferences) -> None:
    for name, value in asdict(preferences).items():
        setattr(subscriber, name, value)


def record_feedback(
    session: Session, subscriber: Subscriber, arxiv_id: str, value: int, now: datetime
) -> None:
    row = session.get(DigestFeedback, (subscriber.id, arxiv_id))
    if row is None:
        session.add(
            DigestFeedback(
                subscriber_id=subscriber.id, arxiv_id=arxiv_id, value=value, given_at=now
            )
        )
    else:
        row.value, row.given_at = value, now


def purge_unconfirmed(session: Session, settings: Settings, now: datetime) -> int:
    """Delete sign-ups never confirmed within ``digest_unconfirmed_days``; returns how many."""
    cutoff = now - timedelta(days=settings.digest_unconfirmed_days)
    result = session.execute(
        delete(Subscriber).where(
            Subscriber.status == "pending", Subscriber.confirmed_at.is_(None),
            Subscriber.created_at < cutoff,
        )
    )  # fmt: skip
    session.execute(
        delete(SubscribeAttempt).where(SubscribeAttempt.attempted_at < now - RATE_WINDOW)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def check_rate(session: Session, settings: Settings, key: str, client: str, now: datetime) -> None:
    """Count a request for ``key`` (an address) and ``client``; refuse one over the limits."""
    limits = {
        key: settings.digest_rate_per_address,
        f"client:{client}": settings.digest_rate_per_client,
    }
    for name, limit in limits.items():
        count = session.scalar(
            select(func.count()).where(
                SubscribeAttempt.key == name, SubscribeAttempt.attempted_at > now - RATE_WINDOW
            )
        )
        if (count or 0) >= limit:
            raise RateLimitedError(name.partition(":")[0])
    session.add_all(SubscribeAttempt(key=name, attempted_at=now) for name in limits)
    session.flush()
