"""The mail outbox: a confirmation, sign-in link or alert kept until the server takes it.

A mail is queued in the unit of work that asked for it, so it is stored before anyone is told it
is on its way. Whoever sends it first claims it with one conditional UPDATE (the row must still
be due), which pushes its due time past :data:`HOLD`: the web's try at once and the scheduler's
mail job never send the same mail twice, and a sender that dies mid-send leaves the mail due
again once the hold ends.

A temporary failure (a 4xx answer, no answer, a dropped line) waits :func:`wait_after` the
attempts so far: 1, 2, 4 … minutes, at most an hour. A reader's mail is given up
:data:`GIVE_UP_AFTER` after it was queued (its link has little use by then); an alert is kept
until it goes, since it is how the operator hears of trouble. A permanent refusal (a 5xx
answer) is given up at once, with the server's words kept for the reader's status page.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.parser import BytesHeaderParser
from enum import StrEnum

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from app.core.models import MailKind, OutboxMail
from digest.mail.mailer import DeliveryError
from digest.mail.messages import OutgoingMail

FIRST_WAIT = timedelta(minutes=1)
LONGEST_WAIT = timedelta(hours=1)
GIVE_UP_AFTER = timedelta(hours=24)
# Longer than a slow server's whole conversation (each SMTP step may take its own timeout).
HOLD = timedelta(minutes=10)
ERROR_LENGTH = 2000


def queue(session: Session, kind: MailKind, mail: OutgoingMail, now: datetime) -> OutboxMail:
    """Keep ``mail``, due now; its ``ticket`` names it on the reader's status page."""
    row = OutboxMail(
        kind=kind,
        sender=mail.sender,
        recipient=mail.recipient,
        message=mail.raw,
        ticket=secrets.token_urlsafe(24),
        created_at=now,
        attempts=0,
        next_attempt_at=now,
    )
    session.add(row)
    session.flush()
    return row


def wait_after(attempts: int) -> timedelta:
    """How long a mail waits after its ``attempts``-th try failed for a while."""
    doubled: timedelta = FIRST_WAIT * 2 ** max(attempts - 1, 0)
    return min(doubled, LONGEST_WAIT)


def claim(session: Session, mail_id: int, now: datetime) -> bool:
    """Take the mail for one try if it is still due (counting the try); False if not."""
    taken = session.execute(
        update(OutboxMail)
        .where(
            OutboxMail.id == mail_id,
            OutboxMail.sent_at.is_(None),
            OutboxMail.given_up_at.is_(None),
            OutboxMail.next_attempt_at <= now,
        )
        .values(attempts=OutboxMail.attempts + 1, next_attempt_at=now + HOLD)
        .execution_options(synchronize_session=False)
    )
    return getattr(taken, "rowcount", 0) == 1


def due(session: Session, now: datetime, limit: int = 500) -> list[int]:
    """The ids of the mails due by ``now``, oldest first."""
    query = (
        select(OutboxMail.id)
        .where(
            OutboxMail.sent_at.is_(None),
            OutboxMail.given_up_at.is_(None),
            OutboxMail.next_attempt_at <= now,
        )
        .order_by(OutboxMail.next_attempt_at, OutboxMail.id)
        .limit(limit)
    )
    return list(session.scalars(query))


def forget(session: Session, recipient: str) -> None:
    """Drop every mail to ``recipient`` (a reader who deleted everything held about them)."""
    session.execute(
        delete(OutboxMail)
        .where(func.lower(OutboxMail.recipient) == recipient.lower())
        .execution_options(synchronize_session=False)
    )


def prune(session: Session, before: datetime) -> int:
    """Drop the mails sent or given up before ``before``; how many. A mail still waiting for
    the server stays, however old."""
    pruned = session.execute(
        delete(OutboxMail)
        .where(or_(OutboxMail.sent_at < before, OutboxMail.given_up_at < before))
        .execution_options(synchronize_session=False)
    )
    return int(getattr(pruned, "rowcount", 0) or 0)


def outgoing(row: OutboxMail) -> OutgoingMail:
    """The kept mail as it goes out again, with the Message-ID it was built with."""
    headers = BytesHeaderParser().parsebytes(row.message)
    message_id = str(headers["Message-ID"] or "")
    return OutgoingMail(
        sender=row.sender, recipient=row.recipient, message_id=message_id, raw=row.message
    )


def record(row: OutboxMail, failure: DeliveryError | None, now: datetime) -> None:
    """What came of a try: sent, due again after the backoff, or given up."""
    if failure is None:
        row.sent_at, row.next_attempt_at = now, None
        return
    row.last_error = str(failure)[:ERROR_LENGTH]
    kept_for = now - row.created_at
    if failure.permanent or (row.kind is not MailKind.ALERT and kept_for >= GIVE_UP_AFTER):
        row.given_up_at, row.next_attempt_at = now, None
    else:
        row.next_attempt_at = now + wait_after(row.attempts)


class Progress(StrEnum):
    """Where a mail stands, as its status page says it."""

    SENT = "sent"
    # Queued or being sent now: no answer from the server yet.
    SENDING = "sending"
    # The server did not take it yet; it is tried again at ``next_attempt_at``.
    WAITING = "waiting"
    GIVEN_UP = "given up"


@dataclass(frozen=True, slots=True)
class MailState:
    kind: MailKind
    progress: Progress
    attempts: int
    next_attempt_at: datetime | None
    # The server's words (for a mail waiting or given up).
    error: str | None


def state_of(row: OutboxMail) -> MailState:
    if row.sent_at is not None:
        progress = Progress.SENT
    elif row.given_up_at is not None:
        progress = Progress.GIVEN_UP
    elif row.last_error is None:
        progress = Progress.SENDING
    else:
        progress = Progress.WAITING
    return MailState(
        kind=row.kind,
        progress=progress,
        attempts=row.attempts,
        next_attempt_at=row.next_attempt_at,
        error=row.last_error,
    )


def find(session: Session, ticket: str) -> OutboxMail | None:
    return session.scalars(select(OutboxMail).where(OutboxMail.ticket == ticket)).first()


@dataclass(frozen=True, slots=True)
class Unsent:
    """The mails of one kind still waiting for the server: how many, and since when."""

    kind: MailKind
    count: int
    since: datetime | None


def unsent(session: Session) -> list[Unsent]:
    """Per kind (every kind, zero included), the mails neither sent nor given up."""
    query = (
        select(OutboxMail.kind, func.count(), func.min(OutboxMail.created_at))
        .where(OutboxMail.sent_at.is_(None), OutboxMail.given_up_at.is_(None))
        .group_by(OutboxMail.kind)
    )
    found = {kind: (count, since) for kind, count, since in session.execute(query)}
    return [Unsent(kind, *found.get(kind, (0, None))) for kind in MailKind]
