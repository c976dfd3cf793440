"""The delivery ledger: claiming the next digest to send, marking it, expiring, reopening one.

A delivery is claimed only by a run of its own edition, matched as the pair (period, edition
date). A pending delivery whose edition a newer one of its period has replaced (a Monday digest
held back by an outage, once Tuesday's is published) is ``expired``, never sent: a reader never
gets yesterday's digest after today's. An operator's ``subscribers resend`` still sends it.

A claimed delivery is ``sending`` (in flight): committed, once the server has taken its
envelope, that says the server may have the message, until its answer is recorded. One whose
sender died in flight is taken again once :data:`IN_FLIGHT_LEASE` has passed, and keeps its
Message-ID; within the lease it may be a live sender's, so it is left alone.

A digest run writes thousands of rows one transaction at a time, so the per-mail statements
are SQLAlchemy Core, built once and executed on the session's connection: the ORM's identity
map, flush and per-statement construction cost more than the statements themselves.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, fields
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Update,
    and_,
    bindparam,
    case,
    func,
    or_,
    select,
    tuple_,
    update,
)
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import (
    Delivery,
    DeliveryStatus,
    Edition,
    EditionKey,
    Frequency,
    Subscriber,
    SubscriberStatus,
)
from app.core.periods import Period

# Room for a traceback's last line, not for the traceback.
MAX_ERROR_CHARS = 500
# A month edition is never mailed, so only these periods have deliveries to expire.
MAILED_PERIODS: tuple[Period, ...] = ("day", "week")
# How long a delivery in flight stays its sender's: far longer than a live sender holds one
# (building it, then RCPT, DATA and two commits, each SMTP wait capped at 30 s), and than two
# senders' clocks differ, so only a dead sender's delivery is ever taken over.
IN_FLIGHT_LEASE = timedelta(minutes=10)


@dataclass(frozen=True, slots=True)
class Reader:
    """What a digest needs of its subscriber, read when the delivery is claimed."""

    id: int
    email: str
    # Every signed link in the digest carries it (see accounts.links).
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
    away_since: date | None = None
    followed_people: list[int] = field(default_factory=list)
    # How far back a followed list's new papers are news: a day, or a week.
    frequency: Frequency = Frequency.DAILY
    followed_organizations: list[str] = field(default_factory=list)
    # Whether the digest lists the papers discussed in its day or week.
    discussed_in_digest: bool = False

    @classmethod
    def of(cls, subscriber: Subscriber) -> Reader:
        return cls(**{name: getattr(subscriber, name) for name in _READER_FIELDS})


@dataclass(frozen=True, slots=True)
class Claim:
    delivery_id: int
    edition: EditionKey
    reader: Reader
    # Chosen by the delivery's first try: every try carries it.
    message_id: str
    # A dead sender left it in flight: the server may already have it.
    found_in_flight: bool


@dataclass(frozen=True, slots=True)
class Claimer:
    """A statement that takes a run's next delivery (built once a run)."""

    statement: Update
    # It takes deliveries a dead sender left in flight (else pending ones).
    in_flight: bool


@dataclass(frozen=True, slots=True)
class Claimers:
    in_flight: Claimer
    pending: Claimer


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
_MARK_DEFERRED = _MARK.values(status=DeliveryStatus.PENDING, error=bindparam("reason"))


def _left_in_flight(stale_before: Any) -> ColumnElement[bool]:
    """In flight since before ``stale_before``: its sender is dead."""
    return and_(Delivery.status == DeliveryStatus.SENDING, Delivery.sending_since < stale_before)


def _unheld(stale_before: Any) -> ColumnElement[bool]:
    """A delivery no sender holds: pending, or left in flight."""
    return or_(Delivery.status == DeliveryStatus.PENDING, _left_in_flight(stale_before))


# After a rollback the claim is gone: only a row no sender holds is marked (another sender may
# have taken it meanwhile).
_MARK_BROKEN = _MARK.where(_unheld(bindparam("stale_before"))).values(
    status=DeliveryStatus.FAILED, error=bindparam("reason"), attempts=Delivery.attempts + 1
)
_SUBSCRIBER = update(Subscriber).where(Subscriber.id == bindparam("reader_id"))
_RESET_FAILURES = _SUBSCRIBER.values(failure_count=0)


def claimers(keys: list[EditionKey], only: int | None) -> Claimers | None:
    """The statements that take the next delivery of these editions (of one subscriber, for a
    resend), after the delivery id ``after`` and not among ``dealt_with``: bound parameters,
    what the pass and the run's earlier pass have dealt with.

    Each ``UPDATE`` takes SQLite's write lock at once (so a second sender waits rather than
    reading the same row); on PostgreSQL ``SKIP LOCKED`` hands concurrent senders other rows,
    and a delivery in flight is taken only once its lease is out (``stale_before``), so a live
    sender's never is.
    """
    if not keys:
        return None
    in_flight = _left_in_flight(bindparam("stale_before"))
    pending = Delivery.status == DeliveryStatus.PENDING
    return Claimers(
        in_flight=Claimer(_claim_statement(in_flight, keys, only), in_flight=True),
        pending=Claimer(_claim_statement(pending, keys, only), in_flight=False),
    )


def _claim_statement(
    which: ColumnElement[bool], keys: list[EditionKey], only: int | None
) -> Update:
    query = select(Delivery.id).where(
        which,
        tuple_(Delivery.period, Delivery.edition_date).in_(keys),
        Delivery.id > bindparam("after"),
        Delivery.id.not_in(bindparam("dealt_with", expanding=True)),
    )
    if only is not None:
        query = query.where(Delivery.subscriber_id == only)
    next_id = query.order_by(Delivery.id).limit(1).with_for_update(skip_locked=True)
    return (
        update(Delivery)
        .where(Delivery.id == next_id.scalar_subquery())
        .values(
            attempts=Delivery.attempts + 1,
            status=DeliveryStatus.SENDING,
            sending_since=bindparam("now"),
            message_id=func.coalesce(Delivery.message_id, bindparam("message_id")),
        )
        .returning(
            Delivery.id,
            Delivery.subscriber_id,
            Delivery.period,
            Delivery.edition_date,
            Delivery.message_id,
        )
    )


def claim(
    session: Session,
    claimer: Claimer,
    after: int,
    *,
    now: datetime,
    message_id: str,
    dealt_with: Collection[int] = (),
) -> Claim | None:
    """The next delivery ``claimer`` takes after id ``after``, and its reader; locked until the
    session commits. ``dealt_with``: deliveries an earlier pass of the run took (one it
    deferred is pending again, and waits for the next run).

    It is marked in flight since ``now``, carrying ``message_id`` unless an earlier try chose
    one: committed, once the server has taken the envelope, that says the server may get the
    message; rolled back, nothing of it happened.
    """
    connection = session.connection()
    values = {
        "after": after,
        "dealt_with": list(dealt_with),
        "stale_before": now - IN_FLIGHT_LEASE,
        "now": now,
        "message_id": message_id,
    }
    row = connection.execute(claimer.statement, values).first()
    if row is None:
        return None
    reader = connection.execute(_READ_READER, {"reader_id": row.subscriber_id}).one()
    return Claim(
        delivery_id=row.id,
        edition=EditionKey(row.period, row.edition_date),
        reader=Reader(**reader._asdict()),
        message_id=row.message_id,
        found_in_flight=claimer.in_flight,
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
    """Make the delivery pending for the next run, saying why this one did not send it."""
    values = {"delivery_id": claim.delivery_id, "reason": error[:MAX_ERROR_CHARS]}
    session.connection().execute(_MARK_DEFERRED, values)


def mark_broken(session: Session, delivery_id: int, error: BaseException, now: datetime) -> None:
    """The delivery failed for a reason of its own (not the mail server's): recorded, not
    counted against the subscriber, since a fault in Paperboy would pause every reader."""
    reason = f"{type(error).__name__}: {error}"[:MAX_ERROR_CHARS]
    values = {"delivery_id": delivery_id, "reason": reason, "stale_before": now - IN_FLIGHT_LEASE}
    session.connection().execute(_MARK_BROKEN, values)


def expire_replaced(session: Session, now: datetime) -> int:
    """Expire every delivery no sender holds whose edition a newer one of its period replaced
    (one left in flight by a dead sender may have arrived; it is not sent again)."""
    expired = 0
    for period in MAILED_PERIODS:
        newest = select(func.max(Edition.edition_date)).where(Edition.period == period)
        result = session.connection().execute(
            update(Delivery)
            .where(
                _unheld(now - IN_FLIGHT_LEASE),
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
    # A new mail, not a retry: mail clients would fold one with the earlier Message-ID.
    row.status, row.message_id = DeliveryStatus.PENDING, None


def count(sessions: sessionmaker[Session], status: DeliveryStatus) -> int:
    with session_scope(sessions) as session:
        found = session.scalar(
            select(func.count()).select_from(Delivery).where(Delivery.status == status)
        )
        return int(found or 0)


def mark_back(session: Session, subscriber_id: int) -> None:
    """The reader had their catch-up: an "I was away since" is answered."""
    session.execute(
        update(Subscriber).where(Subscriber.id == subscriber_id).values(away_since=None)
    )
