"""What the scheduler stores: job runs, its lease and incidents; and the mail outbox."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import (
    LargeBinary,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models.base import Base, StoredState, UTCDateTime


class RunStatus(StrEnum):
    """A job run's ``status``: running until it ends, then its use case's outcome (the values
    of ``app.services.reports.Outcome``)."""

    RUNNING = "running"
    OK = "ok"
    # It finished with a partial or stale source: worth a look, not a failure.
    WARNING = "warning"
    FAILED = "failed"


class Trigger(StrEnum):
    """What started a job run: ``paperboy jobs run`` or the scheduler."""

    MANUAL = "manual"
    SCHEDULE = "schedule"


class JobRun(Base):
    """One run of a scheduled job (by the scheduler or ``paperboy jobs run``).

    ``status``: see :class:`RunStatus`; ``summary`` holds the lines of the use case's report,
    ``error`` its failure with the failure's type.
    """

    __tablename__ = "job_runs"

    id: Mapped[int] = mapped_column(primary_key=True)
    job: Mapped[str] = mapped_column(String(40), index=True)
    run_for: Mapped[date | None]
    trigger: Mapped[Trigger] = mapped_column(StoredState(Trigger, 20))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    status: Mapped[RunStatus] = mapped_column(StoredState(RunStatus, 20))
    exit_code: Mapped[int | None]
    summary: Mapped[str | None] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(Text)


class SchedulerLease(Base):
    """Who may run jobs: one row per lease, held by ``owner`` until ``expires_at``."""

    __tablename__ = "scheduler_leases"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    owner: Mapped[str] = mapped_column(String(200))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Incident(Base):
    """Something the operator must hear of (a failed job), open until a run of it succeeds.

    ``alerted_at`` is set when the admin's alert was queued in the mail outbox (which keeps it
    until the server takes it), so an incident is mailed once however
    often the job fails again before it is repaired. ``acknowledged_at`` is set when an
    operator took it on (``paperboy incidents ack JOB``): it stays open until the job
    succeeds, but ``/status`` no longer counts it as unhealthy.
    """

    __tablename__ = "incidents"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(80), index=True)
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    alerted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    acknowledged_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    failures: Mapped[int] = mapped_column(default=1)
    last_error: Mapped[str | None] = mapped_column(Text)


class MailKind(StrEnum):
    """What a mail in the outbox is: one answering a reader's request, or an operator's alert."""

    CONFIRMATION = "confirmation"
    SIGN_IN = "sign-in"
    # An invitation to co-edit a shared list.
    LIST_INVITATION = "list-invitation"
    # The hourly mail of new replies to a reader's comments, or comments on their papers.
    COMMENTS = "comments"
    ALERT = "alert"


class OutboxMail(Base):
    """A mail kept until the server takes it (``sent_at``) or it is given up (``given_up_at``).

    ``next_attempt_at`` is when it is due: set to now when it is queued, pushed forward while
    a sender holds it (so two senders never send it twice) and after each temporary failure
    (the backoff). ``ticket`` names it on the reader's status page (``/mail/{ticket}``): drawn
    at random, it says nothing of the address. ``last_error`` holds the server's words.
    """

    __tablename__ = "mail_outbox"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[MailKind] = mapped_column(StoredState(MailKind, 20))
    sender: Mapped[str] = mapped_column(String(340))
    recipient: Mapped[str] = mapped_column(String(340))
    message: Mapped[bytes] = mapped_column(LargeBinary)
    ticket: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    last_error: Mapped[str | None] = mapped_column(Text)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    given_up_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
