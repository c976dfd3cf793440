"""The digest run: claim each subscriber's delivery in the ledger, select, render, send, mark.

Each delivery is one transaction: the row is claimed with an ``UPDATE`` (``FOR UPDATE SKIP
LOCKED`` on PostgreSQL, so concurrent senders split the work; SQLite has one writer), the mail
is sent, and the row is marked sent before the commit. A process killed mid-send rolls back
its claim, so the next run sends that digest; a mail is only sent twice if the process dies
between the server's acceptance and the commit. Temporary SMTP errors are retried with
back-off; when they persist the run stops and reports what is left, for the next run.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import date, datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db import insert_plain_rows, session_scope
from app.models import Base, Delivery, Edition, Subscriber
from digest.compose import digest_message
from digest.mailer import DeliveryError, Mailer
from digest.schedule import due
from digest.selection import EditionView
from digest.selection import select as select_picks
from digest.store import Encode, edition_view, latest_edition, taste_of
from ranking.periods import span

LEDGER_COLUMNS = (
    "subscriber_id",
    "period",
    "edition_date",
    "status",
    "attempts",
    "item_count",
    "created_at",
)


@dataclass
class RunSummary:
    day: date
    counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None

    def add(self, outcome: str) -> None:
        self.counts[outcome] = self.counts.get(outcome, 0) + 1

    def line(self) -> str:
        counts = (
            ", ".join(f"{n} {name}" for name, n in sorted(self.counts.items())) or "nothing due"
        )
        return f"digests for {self.day}: {counts}" + (
            f"; stopped: {self.error}" if self.error else ""
        )


def send_digests(
    settings: Settings, sessions: sessionmaker[Session], day: date, now: datetime,
    encode: Encode | None = None,
) -> RunSummary:  # fmt: skip
    return asyncio.run(_run(settings, sessions, day, now, encode))


async def _run(
    settings: Settings, sessions: sessionmaker[Session], day: date, now: datetime,
    encode: Encode | None,
) -> RunSummary:  # fmt: skip
    summary = RunSummary(day)
    editions = _plan(settings, sessions, day, now)
    failures = 0
    async with Mailer(settings) as mailer:
        while True:
            try:
                outcome = await _send_next(settings, sessions, mailer, editions, now, encode)
            except DeliveryError as error:
                failures += 1
                if failures > settings.digest_smtp_retries:
                    summary.error = str(error)
                    break
                await asyncio.sleep(settings.digest_retry_seconds * 2 ** (failures - 1))
                continue
            if outcome is None:
                break
            failures = 0
            summary.add(outcome)
    summary.counts["pending"] = _pending(sessions)
    return summary


def _plan(
    settings: Settings, sessions: sessionmaker[Session], day: date, now: datetime
) -> dict[tuple[str, date], EditionView]:
    """Load the editions of ``day`` and put a pending ledger row for everyone now due."""
    with session_scope(sessions) as session:
        found = {(p, k): latest_edition(session, p, k) for p, k in (("day", day), _week(day))}
        editions: dict[tuple[str, date], Edition] = {key: e for key, e in found.items() if e}
        views = {
            key: edition_view(session, e, settings.embedding_model) for key, e in editions.items()
        }
        rows = []
        for subscriber in session.scalars(select(Subscriber).where(Subscriber.status == "active")):
            target = due(
                subscriber.frequency,
                subscriber.weekday,
                subscriber.delivery_hour,
                subscriber.time_zone,
                day,
                now,
            )
            if target in views:
                rows.append((subscriber.id, target[0], target[1], "pending", 0, 0, now))
        insert_plain_rows(
            session, Base.metadata.tables["deliveries"], LEDGER_COLUMNS, rows, skip_duplicates=True
        )
    return views


def _week(day: date) -> tuple[str, date]:
    return ("week", span("week", day).key)


async def _send_next(
    settings: Settings, sessions: sessionmaker[Session], mailer: Mailer,
    editions: dict[tuple[str, date], EditionView], now: datetime, encode: Encode | None,
) -> str | None:  # fmt: skip
    with session_scope(sessions) as session:
        delivery = _claim(session, list(editions))
        if delivery is None:
            return None
        subscriber = session.get_one(Subscriber, delivery.subscriber_id)
        if subscriber.status != "active":
            delivery.status = "skipped"
            return "skipped"
        view = editions[(delivery.period, delivery.edition_date)]
        taste = taste_of(session, subscriber, settings.embedding_model, encode)
        picks = select_picks(
            view,
            taste,
            max_per_topic=settings.diversity_max_per_topic,
            exclusion_cosine=settings.digest_exclusion_cosine,
        )
        if not picks and not subscriber.send_empty:
            delivery.status = "skipped"
            return "skipped"
        message = digest_message(
            settings, subscriber, delivery.period, delivery.edition_date, picks, now
        )
        try:
            await mailer.send(message)
        except DeliveryError as error:
            if not error.permanent:
                raise
            _record_failure(settings, delivery, subscriber, str(error))
            return "failed"
        delivery.status, delivery.sent_at, delivery.item_count = "sent", now, len(picks)
        delivery.message_id, delivery.error = message["Message-ID"], None
        subscriber.failure_count = 0
        return "sent"


def _claim(session: Session, keys: list[tuple[str, date]]) -> Delivery | None:
    """Take the next pending delivery of these editions, locking it until the commit."""
    if not keys:
        return None
    next_id = (
        select(Delivery.id)
        .where(
            Delivery.status == "pending",
            Delivery.period.in_({p for p, _ in keys}),
            Delivery.edition_date.in_({k for _, k in keys}),
        )
        .order_by(Delivery.id)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    claimed = session.execute(
        update(Delivery)
        .where(Delivery.id == next_id)
        .values(attempts=Delivery.attempts + 1)
        .returning(Delivery.id),
        execution_options={"synchronize_session": False},
    ).scalar()
    return session.get(Delivery, claimed) if claimed is not None else None


def _record_failure(
    settings: Settings, delivery: Delivery, subscriber: Subscriber, error: str
) -> None:
    delivery.status, delivery.error = "failed", error
    subscriber.failure_count += 1
    subscriber.last_failure = error
    if subscriber.failure_count >= settings.digest_failure_limit:
        # An address that keeps bouncing hurts the sender's reputation: stop writing to it.
        subscriber.status = "paused"


def _pending(sessions: sessionmaker[Session]) -> int:
    with session_scope(sessions) as session:
        return len(list(session.scalars(select(Delivery.id).where(Delivery.status == "pending"))))
