"""The delivery ledger: claiming the next pending digest, recording failures, reopening one."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db import session_scope
from app.models import Delivery, Subscriber


def claim(session: Session, keys: list[tuple[str, date]], only: int | None) -> Delivery | None:
    """Take the next pending delivery of these editions, locked until the session commits.

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
    return session.scalars(
        update(Delivery)
        .where(Delivery.id == next_id.scalar_subquery())
        .values(attempts=Delivery.attempts + 1)
        .returning(Delivery),
        execution_options={"synchronize_session": False},
    ).first()


def record_failure(
    settings: Settings, delivery: Delivery, subscriber: Subscriber, error: str
) -> None:
    delivery.status, delivery.error = "failed", error
    subscriber.failure_count += 1
    subscriber.last_failure = error
    if subscriber.failure_count >= settings.digest_failure_limit:
        # An address that keeps bouncing hurts the sender's reputation: stop writing to it.
        subscriber.status = "paused"


def reopen(session: Session, subscriber_id: int, target: tuple[str, date], now: datetime) -> None:
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
