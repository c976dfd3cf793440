"""The digest run: claim each subscriber's delivery in the ledger, select, render, send, mark.

A delivery goes in two transactions. The first claims it with an ``UPDATE`` (``FOR UPDATE SKIP
LOCKED`` on PostgreSQL, so concurrent senders split the work; SQLite has one writer) that marks
it ``sending`` with the Message-ID it carries (chosen by its first try), builds the digest and
gives the server its envelope (``MAIL FROM``, ``RCPT TO``), and commits. Only then does the
server get the message (``DATA``); the second records its answer.

What a crash does: before the first commit, the claim rolls back and the next run sends the
digest. After it, the delivery stays in flight: the server may have the digest. Once the
ledger's lease is out (``digest.ledger.IN_FLIGHT_LEASE``), a run sends it again, with the same
Message-ID, so clients that fold duplicates show it once; the summary counts it ("in flight
from an earlier run"). So a reader can receive one digest twice, as one message, never two
different mails, and no digest is lost.

One delivery never stops the others: a recipient or a message refused for now (a 4xx answer to
``RCPT`` or ``DATA``, or the line dropped during ``DATA``) stays pending for the next run with
the server's words; a permanent refusal (5xx) is marked failed and counts against the
subscriber; a delivery that breaks for any other reason (its subscriber's data, a fault in the
code) is marked failed with the error's type and message; a subscriber whose schedule cannot be
read (an unknown time zone) is left out of the plan, counted and logged. The server's own
trouble (no connection, a refused login or sender) is retried with back-off; when it persists
the run stops and reports what is left, for the next run.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field, replace
from datetime import date, datetime

from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.db import insert_plain_rows, session_scope
from app.core.models import (
    Base,
    DeliveryStatus,
    Subscriber,
    SubscriberStatus,
)
from digest import ledger
from digest.catch_up import Gap, gap_of
from digest.compose import BuiltDigest, build_digest
from digest.due_rows import LEDGER_COLUMNS, Views, due_rows, edition_for, edition_views
from digest.mail.mailer import DeliveryError, Mailer, SmtpStep
from digest.mail.messages import make_message_id
from digest.run_inputs import Encode, days_view
from digest.selection import EditionView
from digest.tastes import Tastes
from search.searcher import Searcher

# A run's outcomes besides the ledger's statuses: a delivery left pending for the next run, and
# a subscriber whose schedule cannot be read (an unknown time zone).
DEFERRED = "deferred"
UNSCHEDULABLE = "unschedulable"
# Of this run's deliveries, those a dead sender had left in flight (each counted by its outcome
# too), and those in flight when the run ends that it left alone (a live sender's, or a dead
# one's within the lease).
FOUND_IN_FLIGHT = "in flight from an earlier run"
STILL_IN_FLIGHT = "still in flight"
logger = logging.getLogger("paperboy.digest")


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
    clock: Clock = utc_now,
    search: Searcher | None = None,
) -> RunSummary:
    """Send edition ``day``'s digest to everyone due at ``now`` who has not had it (``clock``
    says when each delivery goes in flight, and whose lease is out; ``search`` runs saved
    searches)."""
    summary = RunSummary(day)
    views = _plan(settings, sessions, day, now, summary, wall=clock(), search=search)
    tastes = _tastes(settings, sessions, encode, now)
    run = _Run.of(settings, sessions, views, tastes, now=now, clock=clock, only=None)
    run = replace(run, search=search)
    return asyncio.run(_deliver(run, summary))


def resend(
    settings: Settings,
    sessions: sessionmaker[Session],
    subscriber_id: int,
    day: date,
    now: datetime,
    encode: Encode | None = None,
    clock: Clock = utc_now,
    search: Searcher | None = None,
) -> RunSummary:
    """Send one subscriber edition ``day``'s digest again, now (an operator's decision)."""
    with session_scope(sessions) as session:
        views = edition_views(session, settings, day, search)
        subscriber = session.get_one(Subscriber, subscriber_id)
        target = edition_for(subscriber.frequency, day)
        if target not in views:
            return RunSummary(day, error=f"no {target.period} edition for {day}")
        ledger.reopen(session, subscriber_id, target, now)
    tastes = _tastes(settings, sessions, encode, now)
    run = _Run.of(settings, sessions, views, tastes, now=now, clock=clock, only=subscriber_id)
    run = replace(run, search=search)
    return asyncio.run(_deliver(run, RunSummary(day)))


@dataclass(frozen=True, slots=True)
class _Run:
    settings: Settings
    sessions: sessionmaker[Session]
    editions: Views
    # The time the run is for (who is due, the mail's date), and the wall clock (when a
    # delivery goes in flight, and whose lease is out).
    now: datetime
    clock: Clock
    tastes: Tastes
    # The claims of the next delivery: of this run's editions, and only one subscriber's for a
    # resend (built once: their construction costs more than running them).
    claimers: ledger.Claimers | None
    search: Searcher | None = None
    # Catch-ups' views by their first day: readers back on the same day share one.
    gaps: dict[date, EditionView] = field(default_factory=dict)

    def gap_view(self, session: Session, gap: Gap) -> EditionView:
        if gap.first not in self.gaps:
            self.gaps[gap.first] = days_view(
                session,
                gap.first,
                gap.last,
                self.settings.embedding_model,
                shown=self.settings.edition_size,
                search=self.search,
            )
        return self.gaps[gap.first]

    @classmethod
    def of(
        cls,
        settings: Settings,
        sessions: sessionmaker[Session],
        editions: Views,
        tastes: Tastes,
        *,
        now: datetime,
        clock: Clock,
        only: int | None,
    ) -> _Run:
        claimers = ledger.claimers(list(editions), only)
        return cls(settings, sessions, editions, now, clock, tastes, claimers)


def _tastes(
    settings: Settings, sessions: sessionmaker[Session], encode: Encode | None, now: datetime
) -> Tastes:
    with session_scope(sessions) as session:
        return Tastes(session, settings.embedding_model, encode, now=now)


async def _deliver(run: _Run, summary: RunSummary) -> RunSummary:
    async with Mailer(run.settings) as mailer:
        claimers = run.claimers
        if claimers is not None:
            # What a dead sender left in flight first: it is the oldest news. One the server
            # defers is pending again: the pending pass leaves it to the next run, as it
            # leaves the pending ones it defers itself.
            left = await _send_all(run, mailer, claimers.in_flight, summary)
            if left.finished:
                await _send_all(run, mailer, claimers.pending, summary, left.dealt_with)
    summary.counts[DeliveryStatus.PENDING] = ledger.count(run.sessions, DeliveryStatus.PENDING)
    in_flight = ledger.count(run.sessions, DeliveryStatus.SENDING)
    if in_flight:
        summary.counts[STILL_IN_FLIGHT] = in_flight
    return summary


@dataclass(frozen=True, slots=True)
class _Pass:
    """What a pass over the ledger did: whether it took every delivery it could (the server's
    trouble stops it), and the deliveries it dealt with."""

    finished: bool
    dealt_with: list[int]


async def _send_all(
    run: _Run,
    mailer: Mailer,
    claimer: ledger.Claimer,
    summary: RunSummary,
    skip: list[int] | None = None,
) -> _Pass:
    """Deal with every delivery ``claimer`` takes but those in ``skip``."""
    failures, after, dealt_with = 0, 0, list[int]()
    while True:
        try:
            done = await _send_next(run, mailer, claimer, after, skip or [])
        except DeliveryError as error:
            failures += 1
            if failures > run.settings.digest_smtp_retries:
                summary.error = str(error)
                return _Pass(False, dealt_with)
            await asyncio.sleep(run.settings.digest_retry_seconds * 2 ** (failures - 1))
            continue
        if done is None:
            return _Pass(True, dealt_with)
        failures, after = 0, done.delivery_id
        dealt_with.append(done.delivery_id)
        summary.add(done.outcome)
        if done.found_in_flight:
            summary.add(FOUND_IN_FLIGHT)


def _plan(
    settings: Settings,
    sessions: sessionmaker[Session],
    day: date,
    now: datetime,
    summary: RunSummary,
    *,
    wall: datetime,
    search: Searcher | None = None,
) -> Views:
    """Load the editions of ``day``, put a pending ledger row for everyone now due, and expire
    the deliveries nobody holds (``wall``: the clock's time) that a newer edition replaced."""
    with session_scope(sessions) as session:
        views = edition_views(session, settings, day, search)
        due = due_rows(session, views, day, now)
        insert_plain_rows(
            session,
            Base.metadata.tables["deliveries"],
            LEDGER_COLUMNS,
            due.rows,
            skip_duplicates=True,
        )
        expired = ledger.expire_replaced(session, wall)
    if due.unschedulable:
        summary.counts[UNSCHEDULABLE] = due.unschedulable
    if expired:
        summary.counts[DeliveryStatus.EXPIRED] = expired
    return views


@dataclass(frozen=True, slots=True)
class _Done:
    outcome: str
    delivery_id: int
    # A dead sender had left it in flight.
    found_in_flight: bool

    @classmethod
    def of(cls, claim: ledger.Claim, outcome: str) -> _Done:
        return cls(outcome, claim.delivery_id, claim.found_in_flight)


class _DeliveryBrokeError(Exception):
    """One delivery failed for a reason of its own (its data, the code), not the server's."""

    def __init__(self, claim: ledger.Claim, error: Exception) -> None:
        super().__init__(f"delivery {claim.delivery_id}: {error}")
        self.claim, self.error = claim, error


async def _send_next(
    run: _Run, mailer: Mailer, claimer: ledger.Claimer, after: int, skip: list[int]
) -> _Done | None:
    """Deal with the next delivery after id ``after``; None when none is left.

    A delivery that breaks is marked failed in a transaction of its own, once its own has
    rolled back (a failed statement leaves the session unusable), and the run goes on.
    """
    try:
        return await _attempt(run, mailer, claimer, after, skip)
    except _DeliveryBrokeError as broken:
        with session_scope(run.sessions) as session:
            ledger.mark_broken(session, broken.claim.delivery_id, broken.error, run.clock())
        return _Done.of(broken.claim, DeliveryStatus.FAILED)


async def _attempt(
    run: _Run, mailer: Mailer, claimer: ledger.Claimer, after: int, skip: list[int]
) -> _Done | None:
    """Claim, build and address one delivery, and commit it in flight; then send the message
    and record the server's answer."""
    with session_scope(run.sessions) as session:
        fresh_id = make_message_id(run.settings.mail_from)
        claim = ledger.claim(
            session, claimer, after, now=run.clock(), message_id=fresh_id, dealt_with=skip
        )
        if claim is None:
            return None
        try:
            begun = await _begin(run, mailer, session, claim)
        except DeliveryError:
            raise  # the server's trouble, not this delivery's: rolled back, retried
        except Exception as error:
            raise _DeliveryBrokeError(claim, error) from error
    if isinstance(begun, BuiltDigest):
        return _Done.of(claim, await _finish(run, mailer, claim, begun))
    return _Done.of(claim, begun)


async def _begin(
    run: _Run, mailer: Mailer, session: Session, claim: ledger.Claim
) -> BuiltDigest | str:
    """Build the digest and give the server its envelope: the digest, accepted (the claim,
    committed, says it is in flight), or the outcome when the delivery ends here (nothing to
    send, a refused recipient)."""
    built = None
    if claim.reader.status == SubscriberStatus.ACTIVE:
        gap = gap_of(session, claim.reader.id, claim.edition, claim.reader.away_since)
        view = run.editions[claim.edition] if gap is None else run.gap_view(session, gap)
        built = build_digest(
            run.settings,
            session,
            claim.reader,
            view,
            claim.edition,
            run.now,
            run.tastes,
            message_id=claim.message_id,
            gap=gap,
        )
    if built is None:
        ledger.mark_skipped(session, claim)
        return DeliveryStatus.SKIPPED
    try:
        await mailer.begin(built.message)
    except DeliveryError as error:
        return _unsent(run, session, claim, error)
    return built


async def _finish(run: _Run, mailer: Mailer, claim: ledger.Claim, built: BuiltDigest) -> str:
    """Hand the server the message (the delivery is in flight), then record its answer."""
    try:
        await mailer.finish()
    except DeliveryError as error:
        with session_scope(run.sessions) as session:
            return _unsent(run, session, claim, error)
    with session_scope(run.sessions) as session:
        ledger.mark_sent(session, claim, run.now, built.item_count, built.message.message_id)
        if built.catch_up:
            ledger.mark_back(session, claim.reader.id)
    return DeliveryStatus.SENT


def _unsent(run: _Run, session: Session, claim: ledger.Claim, error: DeliveryError) -> str:
    """Record a refusal of this recipient or message: permanent counts against the subscriber;
    one for now (a full mailbox, greylisting, a dropped line) waits for the next run. The
    server's own trouble is raised, for the run to retry."""
    if error.step is SmtpStep.SESSION:
        raise error
    if error.permanent:
        ledger.record_failure(run.settings, session, claim, str(error))
        return DeliveryStatus.FAILED
    ledger.mark_deferred(session, claim, str(error))
    return DEFERRED
