"""The delivery ledger: claiming the next pending digest, marking it, expiring, reopening one.

A delivery is claimed only by a run of its own edition, matched as the pair (period, edition
date). A pending delivery whose edition a newer one of its period has replaced (a Monday digest
held back by an outage, once Tuesday's is published) is ``expired``, never sent: a reader never
gets yesterday's digest after today's. An operator's ``subscribers resend`` still sends it.

A digest run writes thousands of rows one transaction at a time, so the per-mail statements
are SQLAlchemy Core, built once and executed on the session's connection: the ORM's identity
map, flush and per-statement construction cost more than the statements themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import Update, bindparam, case, func, select, tuple_, update
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import (
    Delivery,
    DeliveryStatus,
    Edition,
    EditionKey,
    Subscriber,
    SubscriberStatus,
)
from app.core.periods import Period

# Room for a traceback's last line, not for the traceback.
MAX_ERROR_CHARS = 500
# A month edition is never mailed, so only these periods have deliveries to expire.
MAILED_PERIODS: tuple[Period, ...] = ("day", "week")


@dataclass(frozen=True, slots=True)
class Reader:
    """What a digest needs of its subscriber, read when the delivery is claimed."""

    id: int
    email: str
    # Every signed link in the digest carries it (see digest.accounts.links).
    link_key: str
    status: SubscriberStatus
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
    status=DeliveryStatus.SENT,
    sent_at=bindparam("at"),
    item_count=bindparam("count"),
    message_id=bindparam("message"),
    error=None,
)
_MARK_SKIPPED = _MARK.values(status=DeliveryStatus.SKIPPED)
_MARK_FAILED = _MARK.values(status=DeliveryStatus.FAILED, error=bindparam("reason"))
_MARK_DEFERRED = _MARK.values(error=bindparam("reason"))
# After a rollback the claim is gone: only a row still pending is marked (another sender may
# have taken it meanwhile).
_MARK_BROKEN = _MARK.where(Delivery.status == DeliveryStatus.PENDING).values(
    status=DeliveryStatus.FAILED, error=bindparam("reason"), attempts=Delivery.attempts + 1
)
_SUBSCRIBER = update(Subscriber).where(Subscriber.id == bindparam("reader_id"))
_RESET_FAILURES = _SUBSCRIBER.values(failure_count=0)


def claimer(keys: list[EditionKey], only: int | None) -> Update | None:
    """The statement that takes the next pending delivery of these editions (built once a run),
    after the delivery id ``after`` (a bound parameter: what this run has already dealt with).

    The ``UPDATE`` takes SQLite's write lock at once (so a second sender waits rather than
    reading the same row); on PostgreSQL ``SKIP LOCKED`` hands concurrent senders other rows.
    """
    if not keys:
        return None
    query = select(Delivery.id).where(
        Delivery.status == DeliveryStatus.PENDING,
        tuple_(Delivery.period, Delivery.edition_date).in_(keys),
        Delivery.id > bindparam("after"),
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


def claim(session: Session, claimer: Update | None, after: int = 0) -> Claim | None:
    """The next pending delivery after id ``after`` and its reader, locked until the session
    commits."""
    if claimer is None:
        return None
    connection = session.connection()
    row = connection.execute(claimer, {"after": after}).first()
    if row is None:
        return None
    reader = connection.execute(_READ_READER, {"reader_id": row.subscriber_id}).one()
    return Claim(
        delivery_id=row.id,
        edition=EditionKey(row.period, row.edition_date),
        reader=Reader(**reader._asdict()),
    )


def mark_sent(session: Session, claim: Claim, now: datetime, count: int, message_id: str) -> None:
    connection = session.connection()
    values = {"at": now, "count": count, "message": message_id}
    connection.execute(_MARK_SENT, {"delivery_id": claim.delivery_id, **values})
    if claim.reader.failure_count:
        connection.execute(_RESET_FAILURES, {"reader_id": claim.reader.id})


def mark_skipped(session: Session, claim: Claim) -> None:
    session.connection().execute(_MARK_SKIPPED, {"delivery_id": claim.delivery_id})


def mark_deferred(session: Session, claim: Claim, error: str) -> None:
    """Leave the delivery pending for the next run, saying why this one did not send it."""
    values = {"delivery_id": claim.delivery_id, "reason": error[:MAX_ERROR_CHARS]}
    session.connection().execute(_MARK_DEFERRED, values)


def mark_broken(session: Session, delivery_id: int, error: BaseException) -> None:
    """The delivery failed for a reason of its own (not the mail server's): recorded, not
    counted against the subscriber, since a fault in Paperboy would pause every reader."""
    reason = f"{type(error).__name__}: {error}"[:MAX_ERROR_CHARS]
    session.connection().execute(_MARK_BROKEN, {"delivery_id": delivery_id, "reason": reason})


def expire_replaced(session: Session) -> int:
    """Expire every pending delivery whose edition a newer one of its period replaced."""
    expired = 0
    for period in MAILED_PERIODS:
        newest = select(func.max(Edition.edition_date)).where(Edition.period == period)
        result = session.connection().execute(
            update(Delivery)
            .where(
                Delivery.status == DeliveryStatus.PENDING,
                Delivery.period == period,
                Delivery.edition_date < newest.scalar_subquery(),
            )
            .values(status=DeliveryStatus.EXPIRED, error=f"a newer {period} edition replaced it")
        )
        expired += result.rowcount
    return expired


def record_failure(settings: Settings, session: Session, claim: Claim, error: str) -> None:
    connection = session.connection()
    connection.execute(_MARK_FAILED, {"delivery_id": claim.delivery_id, "reason": error})
    failures = Subscriber.failure_count + 1
    # An address that keeps bouncing hurts the sender's reputation: stop writing to it.
    paused = case(
        (failures >= settings.digest_failure_limit, SubscriberStatus.PAUSED),
        else_=Subscriber.status,
    )
    values: dict[str, Any] = {"failure_count": failures, "last_failure": error, "status": paused}
    connection.execute(_SUBSCRIBER.values(values), {"reader_id": claim.reader.id})


def reopen(session: Session, subscriber_id: int, target: EditionKey, now: datetime) -> None:
    """Make (subscriber, period, date) pending again, or create it: an explicit resend."""
    row = session.scalars(
        select(Delivery).where(
            Delivery.subscriber_id == subscriber_id,
            Delivery.period == target.period,
            Delivery.edition_date == target.edition_date,
        )
    ).first()
    if row is None:
        row = Delivery(
            subscriber_id=subscriber_id,
            period=target.period,
            edition_date=target.edition_date,
            created_at=now,
        )
        session.add(row)
    row.status = DeliveryStatus.PENDING


def pending(sessions: sessionmaker[Session]) -> int:
    with session_scope(sessions) as session:
        count = session.scalar(
            select(func.count())
            .select_from(Delivery)
            .where(Delivery.status == DeliveryStatus.PENDING)
        )
        return int(count or 0)
