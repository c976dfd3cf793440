"""Sending what the mail outbox keeps: one mail at once (after the web's answer, or an alert
as its incident opens), every due mail on one connection (the scheduler's ``mail`` job), and
where a reader's mail stands (its status page).

Each try claims its mail in a unit of work of its own before it talks to the server, and
records what came of it in another: no database connection is held while the server is slow,
and a mail claimed by one sender is never sent by another (``digest.mail.outbox``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime

import anyio
from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import Clock
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import OutboxMail
from app.core.refusals import NotFound
from app.services.reports import Completed, Deployment
from digest.mail import outbox
from digest.mail.mailer import DeliveryError, Mailer, SmtpStep
from digest.mail.outbox import MailState, Progress, Unsent

__all__ = [
    "MailReport",
    "MailState",
    "Progress",
    "Unsent",
    "mail_state",
    "send_alert_now",
    "send_due",
    "send_now",
    "unsent",
]
log = logging.getLogger("paperboy.mail")


def _claimed(sessions: sessionmaker[Session], mail_id: int, now: datetime) -> OutboxMail | None:
    """The mail, taken for one try, or None when another sender has it or it is done."""
    with session_scope(sessions) as session:
        if not outbox.claim(session, mail_id, now):
            return None
        row = session.get_one(OutboxMail, mail_id)
        session.expunge(row)
        return row


def _record(
    sessions: sessionmaker[Session], mail_id: int, failure: DeliveryError | None, now: datetime
) -> Progress:
    with session_scope(sessions) as session:
        row = session.get_one(OutboxMail, mail_id)
        outbox.record(row, failure, now)
        if failure is not None:
            log.warning("%s mail %d not sent (try %d): %s", row.kind, row.id, row.attempts, failure)
        return outbox.state_of(row).progress


async def _try(mailer: Mailer, row: OutboxMail) -> DeliveryError | None:
    try:
        await mailer.send(outbox.outgoing(row))
    except DeliveryError as error:
        return error
    return None


async def send_now(site: Deployment, ticket: str) -> None:
    """Try a reader's queued mail at once (the web's background task, after its answer)."""
    try:
        mail_id = await anyio.to_thread.run_sync(_mail_id, site.sessions, ticket)
        await _send_one(site.settings, site.sessions, site.clock, mail_id)
    except Exception:  # the reader has their answer; the mail job tries again
        log.exception("mail %s: the try at once failed", ticket)


def send_alert_now(
    settings: Settings, sessions: sessionmaker[Session], mail_id: int, clock: Clock
) -> None:
    """Try an alert at once, from the job's own thread (the mail job retries it if need be)."""
    try:
        asyncio.run(_send_one(settings, sessions, clock, mail_id))
    except Exception:  # the alert is kept; the mail job tries again
        log.exception("alert mail %d: the try at once failed", mail_id)


async def _send_one(
    settings: Settings, sessions: sessionmaker[Session], clock: Clock, mail_id: int
) -> None:
    row = await anyio.to_thread.run_sync(_claimed, sessions, mail_id, clock())
    if row is None:
        return
    async with Mailer(settings) as mailer:
        failure = await _try(mailer, row)
    await anyio.to_thread.run_sync(_record, sessions, mail_id, failure, clock())


def _mail_id(sessions: sessionmaker[Session], ticket: str) -> int:
    with session_scope(sessions) as session:
        row = outbox.find(session, ticket)
        if row is None:
            raise NotFound("no such mail")
        return row.id


@dataclass(frozen=True)
class MailReport(Completed):
    """What one run of the mail job did."""

    sent: int
    waiting: int
    given_up: int

    def lines(self) -> list[str]:
        if not (self.sent or self.waiting or self.given_up):
            return []
        return [f"mail: {self.sent} sent, {self.waiting} to try again, {self.given_up} given up"]


def send_due(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, _day: date | None = None
) -> MailReport:
    """The ``mail`` job: every mail due by ``now``, on one SMTP connection."""
    with session_scope(sessions) as session:
        due = outbox.due(session, now)
    if not due:
        return MailReport(0, 0, 0)
    progress = asyncio.run(_send_each(settings, sessions, due, lambda: now))
    return MailReport(
        sent=progress.count(Progress.SENT),
        waiting=progress.count(Progress.WAITING),
        given_up=progress.count(Progress.GIVEN_UP),
    )


async def _send_each(
    settings: Settings,
    sessions: sessionmaker[Session],
    due: list[int],
    clock: Callable[[], datetime],
) -> list[Progress]:
    progress: list[Progress] = []
    async with Mailer(settings) as mailer:
        for mail_id in due:
            row = _claimed(sessions, mail_id, clock())
            if row is None:
                continue
            failure = await _try(mailer, row)
            progress.append(_record(sessions, mail_id, failure, clock()))
            if failure is not None and _server_away(failure):
                break  # the rest stay due for the next run rather than each wait for it
    return progress


def _server_away(failure: DeliveryError) -> bool:
    return not failure.permanent and failure.step is SmtpStep.SESSION


def mail_state(session: Session, ticket: str) -> MailState:
    """Where the mail a ticket names stands; :class:`NotFound` for any other ticket."""
    row = outbox.find(session, ticket) if ticket else None
    if row is None:
        raise NotFound("There is no such mail here. The link may be mistyped.")
    return outbox.state_of(row)


def unsent(session: Session) -> list[Unsent]:
    """Per kind of mail, how many still wait for the server, and since when."""
    return outbox.unsent(session)
