"""The delivery ledger: claiming the next pending digest, marking it, reopening one.

A digest run writes thousands of rows one transaction at a time, so the per-mail statements
are SQLAlchemy Core, built once and executed on the session's connection: the ORM's identity
map, flush and per-statement construction cost more than the statements themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import date, datetime
from typing import Any

from sqlalchemy import Update, bindparam, case, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db import session_scope
from app.models import Delivery, Subscriber

EditionKey = tuple[str, date]


@dataclass(frozen=True, slots=True)
class Reader:
    """What a digest needs of its subscriber, read when the delivery is claimed."""

    id: int
    email: str
    status: str
    categories: list[str]
    interests: str
    exclusions: str
    followed_topics: list[int]
    muted_topics: list[int]
    followed_authors: list[str]
    muted_authors: list[str]
    max_items: int
    send_empty: bool
    failure_count: int

    @classmethod
    def of(cls, subscriber: Subscriber) -> Reader:
        return cls(**{name: getattr(subscriber, name) for name in _READER_FIELDS})


@dataclass(frozen=True, slots=True)
class Claim:
    delivery_id: int
    edition: EditionKey
    reader: Reader


_READER_FIELDS = tuple(field.name for field in fields(Reader))
_READ_READER = select(*(getattr(Subscriber, name) for name in _READER_FIELDS)).where(
    Subscriber.id == bindparam("reader_id")
)
_MARK = update(Delivery).where(Delivery.id == bindparam("delivery_id"))
_MARK_SENT = _MARK.values(
    status="sent",
    sent_at=bindparam("at"),
    item_count=bindparam("count"),
    message_id=bindparam("message"),
    error=None,
)
_MARK_SKIPPED = _MARK.values(status="skipped")
_MARK_FAILED = _MARK.values(status="failed", error=bindparam("reason"))
_SUBSCRIBER = update(Subscriber).where(Subscriber.id == bindparam("reader_id"))
_RESET_FAILURES = _SUBSCRIBER.values(failure_count=0)


def claimer(keys: list[EditionKey], only: int | None) -> Update | None:
    """The statement that takes the next pending delivery of these editions (built once a run).

    The ``UPDATE`` takes SQLite's write lock at once (so a second sender waits rather than
    reading the same row); on PostgreSQL ``SKIP LOCKED`` hands concurrent senders other rows.
    """
    if not keys:
        return None
    query = select(Delivery.id).where(
        Delivery.status == "pending",
        Delivery.period.in_({period for period, _ in keys}),
        Delivery.edition_date.in_({key for _, key in keys}),
    )
    if only is not None:
        query = query.where(Delivery.subscriber_id == only)
    next_id = query.order_by(Delivery.id).limit(1).with_for_update(skip_locked=True)
    return (
        update(Delivery)
        .where(Delivery.id == next_id.scalar_subquery())
        .values(attempts=Delivery.attempts + 1)
        .returning(Delivery.id, Delivery.subscriber_id, Delivery.period, Delivery.edition_date)
    )


def claim(session: Session, claimer: Update | None) -> Claim | None:
    """The next pending delivery and its reader, locked until the session commits."""
    if claimer is None:
        return None
    connection = session.connection()
    row = connection.execute(claimer).first()
    if row is None:
        return None
    delivery_id, reader_id, period, key = row
    reader = connection.execute(_READ_READER, {"reader_id": reader_id}).one()
    return Claim(delivery_id, (period, key), Reader(*reader))


def mark_sent(session: Session, claim: Claim, now: datetime, count: int, message_id: str) -> None:
    connection = session.connection()
    values = {"at": now, "count": count, "message": message_id}
    connection.execute(_MARK_SENT, {"delivery_id": claim.delivery_id, **values})
    if claim.reader.failure_count:
        connection.execute(_RESET_FAILURES, {"reader_id": claim.reader.id})


def mark_skipped(session: Session, claim: Claim) -> None:
    session.connection().execute(_MARK_SKIPPED, {"delivery_id": claim.delivery_id})


def record_failure(settings: Settings, session: Session, claim: Claim, error: str) -> None:
    connection = session.connection()
    connection.execute(_MARK_FAILED, {"delivery_id": claim.delivery_id, "reason": error})
    failures = Subscriber.failure_count + 1
    # An address that keeps bouncing hurts the sender's reputation: stop writing to it.
    paused = case((failures >= settings.digest_failure_limit, "paused"), else_=Subscriber.status)
    values: dict[str, Any] = {"failure_count": failures, "last_failure": error, "status": paused}
    connection.execute(_SUBSCRIBER.values(values), {"reader_id": claim.reader.id})


def reopen(session: Session, subscriber_id: int, target: EditionKey, now: datetime) -> None:
    """Make (subscriber, period, date) pending again, or create it: an explicit resend."""
    period, key = target
    row = session.scalars(
        select(Delivery).where(
            Delivery.subscriber_id == subscriber_id,
            Delivery.period == period,
            Delivery.edition_date == key,
        )
    ).first()
    if row is None:
        row = Delivery(subscriber_id=subscriber_id, period=period, edition_date=key, created_at=now)
        session.add(row)
    row.status = "pending"


def pending(sessions: sessionmaker[Session]) -> int:
    with session_scope(sessions) as session:
        count = session.scalar(
            select(func.count()).select_from(Delivery).where(Delivery.status == "pending")
        )
        return int(count or 0)
