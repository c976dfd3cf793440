"""The digest run: claim each subscriber's delivery in the ledger, select, render, send, mark.

Each delivery is one transaction: the row is claimed with an ``UPDATE`` (``FOR UPDATE SKIP
LOCKED`` on PostgreSQL, so concurrent senders split the work; SQLite has one writer), the mail
is sent, and the row is marked sent before the commit. A process killed mid-send rolls back
its claim, so the next run sends that digest; a mail is only sent twice if the process dies
between the server's acceptance and the commit. Temporary SMTP errors are retried with
back-off; when they persist the run stops and reports what is left, for the next run.

One delivery never stops the others: a recipient refused for now (4xx) stays pending for the
next run; a delivery that breaks for any other reason (its subscriber's data, a fault in the
code) is marked failed with the error's type and message; a subscriber whose schedule cannot
be read (an unknown time zone) is left out of the plan, counted and logged.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import NamedTuple

import aiosmtplib
from sqlalchemy import Update, select
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import insert_plain_rows, session_scope
from app.core.models import (
    Base,
    DeliveryStatus,
    EditionKey,
    Subscriber,
    SubscriberStatus,
)
from app.core.periods import Period, span
from digest import ledger
from digest.compose import digest_message
from digest.ledger import Reader
from digest.mail.mailer import DeliveryError, Mailer
from digest.mail.messages import OutgoingMail
from digest.picks import reader_picks
from digest.schedule import due, edition_for
from digest.selection import EditionView
from digest.store import Encode, edition_view, latest_edition
from digest.tastes import Tastes

Views = dict[EditionKey, EditionView]
# A run's outcomes besides the ledger's statuses: a delivery left pending for the next run, and
# a subscriber whose schedule cannot be read (an unknown time zone).
DEFERRED = "deferred"
UNSCHEDULABLE = "unschedulable"
logger = logging.getLogger("paperboy.digest")


class _LedgerRow(NamedTuple):
    """A new pending delivery, as the plain-row insert takes it (its fields are the columns)."""

    subscriber_id: int
    period: Period
    edition_date: date
    status: DeliveryStatus
    attempts: int
    item_count: int
    created_at: datetime


LEDGER_COLUMNS = _LedgerRow._fields


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
    settings: Settings,
    sessions: sessionmaker[Session],
    day: date,
    now: datetime,
    encode: Encode | None = None,
) -> RunSummary:
    """Send edition ``day``'s digest to everyone due at ``now`` who has not had it."""
    summary = RunSummary(day)
    views = _plan(settings, sessions, day, now, summary)
    run = _Run.of(settings, sessions, views, now, _tastes(settings, sessions, encode), None)
    return asyncio.run(_deliver(run, summary))


def resend(
    settings: Settings,
    sessions: sessionmaker[Session],
    subscriber_id: int,
    day: date,
    now: datetime,
    encode: Encode | None = None,
) -> RunSummary:
    """Send one subscriber edition ``day``'s digest again, now (an operator's decision)."""
    with session_scope(sessions) as session:
        views = _views(session, settings, day)
        subscriber = session.get_one(Subscriber, subscriber_id)
        target = edition_for(subscriber.frequency, day)
        if target not in views:
            return RunSummary(day, error=f"no {target.period} edition for {day}")
        ledger.reopen(session, subscriber_id, target, now)
    tastes = _tastes(settings, sessions, encode)
    run = _Run.of(settings, sessions, views, now, tastes, subscriber_id)
    return asyncio.run(_deliver(run, RunSummary(day)))


@dataclass(frozen=True, slots=True)
class _Run:
    settings: Settings
    sessions: sessionmaker[Session]
    editions: Views
    now: datetime
    tastes: Tastes
    # The claim of the next delivery: of this run's editions, and only one subscriber's for a
    # resend (built once: its construction costs more than running it).
    claimer: Update | None

    @classmethod
    def of(
        cls,
        settings: Settings,
        sessions: sessionmaker[Session],
        editions: Views,
        now: datetime,
        tastes: Tastes,
        only: int | None,
    ) -> _Run:
        claimer = ledger.claimer(list(editions), only)
        return cls(settings, sessions, editions, now, tastes, claimer)


def _tastes(settings: Settings, sessions: sessionmaker[Session], encode: Encode | None) -> Tastes:
    with session_scope(sessions) as session:
        return Tastes(session, settings.embedding_model, encode)


async def _deliver(run: _Run, summary: RunSummary) -> RunSummary:
    failures, after = 0, 0
    async with Mailer(run.settings) as mailer:
        while True:
            try:
                done = await _send_next(run, mailer, after)
            except DeliveryError as error:
                failures += 1
                if failures > run.settings.digest_smtp_retries:
                    summary.error = str(error)
                    break
                await asyncio.sleep(run.settings.digest_retry_seconds * 2 ** (failures - 1))
                continue
            if done is None:
                break
            failures, after = 0, done.delivery_id
            summary.add(done.outcome)
    summary.counts[DeliveryStatus.PENDING] = ledger.pending(run.sessions)
    return summary


def _plan(
    settings: Settings,
    sessions: sessionmaker[Session],
    day: date,
    now: datetime,
    summary: RunSummary,
) -> Views:
    """Load the editions of ``day``, put a pending ledger row for everyone now due, and expire
    the pending rows a newer edition replaced."""
    with session_scope(sessions) as session:
        views = _views(session, settings, day)
        rows = _due_rows(session, views, day, now, summary)
        insert_plain_rows(
            session, Base.metadata.tables["deliveries"], LEDGER_COLUMNS, rows, skip_duplicates=True
        )
        expired = ledger.expire_replaced(session)
    if expired:
        summary.counts[DeliveryStatus.EXPIRED] = expired
    return views


def _due_rows(
    session: Session, views: Views, day: date, now: datetime, summary: RunSummary
) -> list[_LedgerRow]:
    rows: list[_LedgerRow] = []
    # Only the columns that say when: whole subscriber objects cost most of the planning.
    schedules = session.execute(
        select(
            Subscriber.id,
            Subscriber.frequency,
            Subscriber.weekday,
            Subscriber.delivery_hour,
            Subscriber.time_zone,
        ).where(Subscriber.status == SubscriberStatus.ACTIVE)
    )
    for subscriber_id, frequency, weekday, hour, time_zone in schedules:
        try:
            target = due(frequency, weekday, hour, time_zone, day, now)
        except Exception as error:  # one subscriber's row never stops everyone's digest
            logger.warning("subscriber %s cannot be scheduled: %r", subscriber_id, error)
            summary.add(UNSCHEDULABLE)
            continue
        if target in views:
            rows.append(_pending_row(subscriber_id, target, now))
    return rows


def _pending_row(subscriber_id: int, edition: EditionKey, now: datetime) -> _LedgerRow:
    return _LedgerRow(
        subscriber_id=subscriber_id,
        period=edition.period,
        edition_date=edition.edition_date,
        status=DeliveryStatus.PENDING,
        attempts=0,
        item_count=0,
        created_at=now,
    )


def _views(session: Session, settings: Settings, day: date) -> Views:
    keys = (EditionKey("day", day), EditionKey("week", span("week", day).key))
    views: Views = {}
    for key in keys:
        edition = latest_edition(session, key.period, key.edition_date)
        if edition is not None:
            views[key] = edition_view(session, edition, settings.embedding_model)
    return views


class BuiltDigest(NamedTuple):
    message: OutgoingMail
    item_count: int


def build_digest(
    settings: Settings,
    session: Session,
    reader: Reader,
    view: EditionView,
    edition: EditionKey,
    now: datetime,
    tastes: Tastes,
) -> BuiltDigest | None:
    """The reader's digest and its size, or None when it would be empty and unwanted."""
    picks = reader_picks(settings, session, reader, view, tastes)
    if not picks and not reader.send_empty:
        return None
    return BuiltDigest(digest_message(settings, reader, edition, picks, now), len(picks))


@dataclass(frozen=True, slots=True)
class _Done:
    outcome: str
    delivery_id: int


class _DeliveryBrokeError(Exception):
    """One delivery failed for a reason of its own (its data, the code), not the server's."""

    def __init__(self, delivery_id: int, error: Exception) -> None:
        super().__init__(f"delivery {delivery_id}: {error}")
        self.delivery_id, self.error = delivery_id, error


async def _send_next(run: _Run, mailer: Mailer, after: int) -> _Done | None:
    """Deal with the next delivery after id ``after``; None when none is left.

    A delivery that breaks is marked failed in a transaction of its own, once its own has
    rolled back (a failed statement leaves the session unusable), and the run goes on.
    """
    try:
        return await _attempt(run, mailer, after)
    except _DeliveryBrokeError as broken:
        with session_scope(run.sessions) as session:
            ledger.mark_broken(session, broken.delivery_id, broken.error)
        return _Done(DeliveryStatus.FAILED, broken.delivery_id)


async def _attempt(run: _Run, mailer: Mailer, after: int) -> _Done | None:
    """Claim, build, send and mark one delivery in one transaction."""
    with session_scope(run.sessions) as session:
        claim = ledger.claim(session, run.claimer, after)
        if claim is None:
            return None
        try:
            return _Done(await _send_claimed(run, mailer, session, claim), claim.delivery_id)
        except DeliveryError:
            raise  # the server's trouble, not this delivery's: rolled back, retried
        except Exception as error:
            raise _DeliveryBrokeError(claim.delivery_id, error) from error


async def _send_claimed(run: _Run, mailer: Mailer, session: Session, claim: ledger.Claim) -> str:
    built = None
    if claim.reader.status == SubscriberStatus.ACTIVE:
        view = run.editions[claim.edition]
        built = build_digest(
            run.settings, session, claim.reader, view, claim.edition, run.now, run.tastes
        )
    if built is None:
        ledger.mark_skipped(session, claim)
        return DeliveryStatus.SKIPPED
    try:
        await mailer.send(built.message)
    except DeliveryError as error:
        return _unsent(run, session, claim, error)
    ledger.mark_sent(session, claim, run.now, built.item_count, built.message.message_id)
    return DeliveryStatus.SENT


def _unsent(run: _Run, session: Session, claim: ledger.Claim, error: DeliveryError) -> str:
    """Record a refusal: permanent counts against the subscriber; a recipient refused for now
    (a full mailbox, greylisting) waits for the next run. Anything else is the server's."""
    if error.permanent:
        ledger.record_failure(run.settings, session, claim, str(error))
        return DeliveryStatus.FAILED
    if isinstance(error.__cause__, aiosmtplib.SMTPRecipientsRefused):
        ledger.mark_deferred(session, claim, str(error))
        return DEFERRED
    raise error
