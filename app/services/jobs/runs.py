"""Running one job now and recording it: a job-run row (start, end, status, exit code, the
report's lines as its summary, the failure with its type as its error), one summary log
line, and the incident bookkeeping that alerts the operator once per incident.

``paperboy jobs run`` and the scheduler both run jobs through :func:`run_job`. A job's
result is its use case's report (data); nothing is read from what it prints, so jobs could
run side by side (the scheduler still runs one at a time, so a day's steps never overlap).

An incident is what alerts the admin: mailed once when a job starts failing, closed when it
recovers. It is keyed by job name. A failed or warning (partial, stale source) run opens one,
or counts another failure on the open one; the first ok run closes it. The admin
(``PAPERBOY_ADMIN_EMAIL``) is mailed once per incident (``templates/email/job_alert/``): the
alert is queued in the mail outbox and tried at once; if the server does not take it, it is
kept there, counted on ``/status`` and ``/metrics``, and the ``mail`` job sends it once the
server is back. An operator acknowledges an open
incident (``paperboy incidents ack JOB``): it stays open until the job succeeds, and
``/status`` shows it as acknowledged rather than unhealthy.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import delete, func, select, tuple_
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.db import session_scope
from app.core.db_faults import connection_lost
from app.core.models import Incident, JobRun, MailKind, RunStatus, Trigger
from app.services.jobs.table import Job
from app.services.mail_outbox import send_alert_now
from app.services.reports import Failure, Outcome, Report
from digest.mail import outbox
from digest.mail.messages import Envelope, OutgoingMail, build_message, render_email

logger = logging.getLogger("paperboy.jobs")


@dataclass(frozen=True)
class Crash:
    """The report of a job whose use case raised: a failed run with the exception's type."""

    error: Failure

    @property
    def outcome(self) -> Outcome:
        return Outcome.FAILED

    @property
    def failure(self) -> Failure:
        return self.error

    def lines(self) -> list[str]:
        return []


@dataclass(frozen=True)
class JobOutcome:
    """How one run ended: the use case's report (a :class:`Crash` if it raised)."""

    report: Report

    @property
    def status(self) -> RunStatus:
        return RunStatus(self.report.outcome.value)

    @property
    def exit_code(self) -> int:
        return self.report.outcome.exit_code

    @property
    def summary(self) -> str | None:
        return "\n".join(self.report.lines()) or None

    @property
    def error(self) -> str | None:
        failure = self.report.failure
        return None if failure is None else str(failure)


def run_job(
    job: Job,
    settings: Settings,
    sessions: sessionmaker[Session],
    day: date | None = None,
    *,
    trigger: Trigger = Trigger.MANUAL,
    clock: Clock = utc_now,
) -> JobOutcome:
    """Run ``job`` once for ``day`` (None: the latest), recording and reporting it."""
    started = clock()
    run_id = _start(sessions, job.name, day, trigger, started)
    outcome = execute(job, settings, sessions, started, day)
    finished = clock()
    with session_scope(sessions) as session:
        _finish(session, run_id, outcome, finished)
        incident = note_outcome(session, job.name, outcome.report.outcome, outcome.error, finished)
    alert_if_new(settings, sessions, incident, clock)
    _log(job.name, day, trigger, outcome, (finished - started).total_seconds())
    return outcome


def execute(
    job: Job, settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None
) -> JobOutcome:
    """Run the job's use case; an exception is a failed run with the exception's type.

    A database gone away is not the job's failure: it propagates, and the scheduler waits it
    out and runs the job again once the database is back.
    """
    try:
        return JobOutcome(job.body(settings, sessions, now, day))
    except Exception as error:  # a job must never take the scheduler down with it
        if isinstance(error, DBAPIError) and connection_lost(error):
            raise
        logger.exception("job %s raised", job.name)
        return JobOutcome(Crash(Failure.of(error)))


def _start(
    sessions: sessionmaker[Session], name: str, day: date | None, trigger: Trigger, now: datetime
) -> int:
    with session_scope(sessions) as session:
        row = JobRun(
            job=name, run_for=day, trigger=trigger, started_at=now, status=RunStatus.RUNNING
        )
        session.add(row)
        session.flush()
        return row.id


def _finish(session: Session, run_id: int, outcome: JobOutcome, now: datetime) -> None:
    row = session.get_one(JobRun, run_id)
    row.finished_at = now
    row.status = outcome.status
    row.exit_code = outcome.exit_code
    row.summary = outcome.summary
    row.error = outcome.error


def prune(session: Session, before: datetime) -> int:
    """Drop the runs that finished before ``before``; how many. Each job's newest run and its
    newest success stay whatever their age: ``/status``, ``/metrics`` and ``paperboy jobs
    list`` show them, and a job with no success left would read as never having succeeded."""
    newest = select(func.max(JobRun.id)).group_by(JobRun.job)
    newest_success = (
        select(JobRun.job, func.max(JobRun.finished_at))
        .where(JobRun.status == RunStatus.OK)
        .group_by(JobRun.job)
    )
    pruned = session.execute(
        delete(JobRun)
        .where(
            JobRun.finished_at < before,
            JobRun.id.not_in(newest),
            tuple_(JobRun.job, JobRun.finished_at).not_in(newest_success),
        )
        .execution_options(synchronize_session=False)
    )
    return int(getattr(pruned, "rowcount", 0) or 0)


def _log(
    name: str, day: date | None, trigger: Trigger, outcome: JobOutcome, seconds: float
) -> None:
    fields = {
        "job": name,
        "run_for": day.isoformat() if day else None,
        "trigger": str(trigger),
        "status": str(outcome.status),
        "exit_code": outcome.exit_code,
        "seconds": round(seconds, 3),
        "error": outcome.error,
    }
    level = logging.INFO if outcome.status is RunStatus.OK else logging.WARNING
    text = " ".join(f"{key}={value}" for key, value in fields.items() if value is not None)
    logger.log(level, "job run: %s", text, extra={"fields": fields})


def note_outcome(
    session: Session, key: str, outcome: Outcome, error: str | None, now: datetime
) -> int | None:
    """Update the incidents for a run's outcome; the id of one that still needs its alert."""
    incident = open_incident(session, key)
    if outcome is Outcome.OK:
        if incident is not None:
            incident.closed_at = now
        return None
    if incident is None:
        incident = Incident(key=key, opened_at=now, failures=1, last_error=error)
        session.add(incident)
        session.flush()
    else:
        incident.failures += 1
        incident.last_error = error
    return incident.id if incident.alerted_at is None else None


def open_incident(session: Session, key: str) -> Incident | None:
    query = select(Incident).where(Incident.key == key, Incident.closed_at.is_(None))
    return session.scalars(query.order_by(Incident.id.desc()).limit(1)).first()


def acknowledge(session: Session, key: str, now: datetime) -> Incident | None:
    """Mark the open incident of job ``key`` acknowledged (once); None if there is none."""
    incident = open_incident(session, key)
    if incident is not None and incident.acknowledged_at is None:
        incident.acknowledged_at = now
    return incident


def open_incidents(session: Session) -> list[Incident]:
    query = select(Incident).where(Incident.closed_at.is_(None)).order_by(Incident.opened_at)
    return list(session.scalars(query))


def alert_if_new(
    settings: Settings,
    sessions: sessionmaker[Session],
    incident_id: int | None,
    clock: Clock,
) -> None:
    """Queue the incident's alert in the outbox (once: ``alerted_at``) and try it at once; an
    alert the server does not take stays there for the ``mail`` job, shown on ``/status``."""
    if incident_id is None or not settings.admin_email:
        return
    now = clock()
    with session_scope(sessions) as session:
        incident = session.get_one(Incident, incident_id)
        mail = alert_message(settings, incident, now)
        mail_id = outbox.queue(session, MailKind.ALERT, mail, now).id
        incident.alerted_at = now
    send_alert_now(settings, sessions, mail_id, clock)


def alert_message(settings: Settings, incident: Incident, now: datetime) -> OutgoingMail:
    context = {
        "job": incident.key,
        "opened_at": f"{incident.opened_at:%Y-%m-%d %H:%M}",
        "error": incident.last_error or "no error text",
        "status_url": settings.public_base_url.rstrip("/") + "/status",
    }
    envelope = Envelope(settings.mail_from, settings.admin_email, now)
    return build_message(envelope, render_email("job_alert", context))
