"""The operator's tools on subscribers (``paperboy subscribers``, ``unsubscribe-mail``): who
is subscribed with how many digests sent, one subscriber's settings and delivery history,
removing everything stored about one, and unsubscribing the sender of a mail (its link
read by :func:`unsubscribe_token`, before any database is opened): from the digest, or from
the one kind of mail about discussions a comment mail's link names.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from accounts.links import MAX_MESSAGE_BYTES as MAX_MESSAGE_BYTES
from accounts.links import UNSUBSCRIBE
from accounts.links import InboundMailError as InboundMailError
from accounts.links import unsubscribe_token as unsubscribe_token
from accounts.subscriptions import delete_everything, subscriber_for, unsubscribe
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import Delivery, DeliveryStatus, Subscriber
from app.core.periods import Period
from app.core.tokens import TokenError
from app.services.comment_mail import turn_off_by_mail
from app.services.digests import subscriber_by_email


@dataclass(frozen=True)
class SubscriberRow:
    """One subscriber as ``subscribers list`` shows them."""

    email: str
    status: str
    frequency: str
    sent: int
    failures: int


@dataclass(frozen=True)
class DeliveryRow:
    period: Period
    edition_date: date
    status: str
    attempts: int
    error: str | None


@dataclass(frozen=True)
class SubscriberDetails:
    """One subscriber's settings and deliveries, newest edition first."""

    email: str
    status: str
    frequency: str
    delivery_hour: int
    time_zone: str
    max_items: int
    categories: tuple[str, ...]
    failure_count: int
    last_failure: str | None
    deliveries: tuple[DeliveryRow, ...]


def list_subscribers(sessions: sessionmaker[Session]) -> list[SubscriberRow]:
    """Every subscriber by address, with the digests sent to them."""
    with session_scope(sessions) as session:
        sent = dict(
            session.execute(
                select(Delivery.subscriber_id, func.count())
                .where(Delivery.status == DeliveryStatus.SENT)
                .group_by(Delivery.subscriber_id)
            ).all()
        )
        return [
            SubscriberRow(
                email=s.email,
                status=s.status,
                frequency=s.frequency,
                sent=sent.get(s.id, 0),
                failures=s.failure_count,
            )
            for s in session.scalars(select(Subscriber).order_by(Subscriber.email))
        ]


def show_subscriber(sessions: sessionmaker[Session], email: str) -> SubscriberDetails | None:
    """The subscriber of ``email`` with their delivery history; None if there is none."""
    with session_scope(sessions) as session:
        subscriber = subscriber_by_email(session, email)
        if subscriber is None:
            return None
        return _details(subscriber, _deliveries(session, subscriber))


def _deliveries(session: Session, subscriber: Subscriber) -> tuple[DeliveryRow, ...]:
    deliveries = session.scalars(
        select(Delivery)
        .where(Delivery.subscriber_id == subscriber.id)
        .order_by(Delivery.edition_date.desc())
    )
    return tuple(
        DeliveryRow(
            period=d.period,
            edition_date=d.edition_date,
            status=d.status,
            attempts=d.attempts,
            error=d.error,
        )
        for d in deliveries
    )


def _details(subscriber: Subscriber, deliveries: tuple[DeliveryRow, ...]) -> SubscriberDetails:
    return SubscriberDetails(
        email=subscriber.email,
        status=subscriber.status,
        frequency=subscriber.frequency,
        delivery_hour=subscriber.delivery_hour,
        time_zone=subscriber.time_zone,
        max_items=subscriber.max_items,
        categories=tuple(subscriber.categories),
        failure_count=subscriber.failure_count,
        last_failure=subscriber.last_failure,
        deliveries=deliveries,
    )


def remove_subscriber(sessions: sessionmaker[Session], email: str) -> bool:
    """Delete the subscriber of ``email`` and all stored about them; False if there is none."""
    with session_scope(sessions) as session:
        subscriber = subscriber_by_email(session, email)
        if subscriber is None:
            return False
        delete_everything(session, subscriber)
        return True


def unsubscribe_by_token(
    settings: Settings, sessions: sessionmaker[Session], token: str, now: datetime
) -> None:
    """Unsubscribe whoever a mail's unsubscribe link (:func:`unsubscribe_token`) was issued to,
    from what that mail was (a digest, or one kind of comment mail); ``TokenError`` if it is
    refused or they are gone."""
    try:
        with session_scope(sessions) as session:
            unsubscribe(subscriber_for(session, settings, token, UNSUBSCRIBE, now), now)
    except TokenError as refused:
        if refused.reason != "wrong-purpose":
            raise
        turn_off_by_mail(settings, sessions, token, now)
