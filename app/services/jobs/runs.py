"""Running one job now and recording it: a job-run row (start, end, status, exit code, the
report's lines as its summary, the failure with its type as its error), one summary log
line, and the incident bookkeeping that alerts the operator once per incident.

``paperboy jobs run`` and the scheduler both run jobs through :func:`run_job`. A job's
result is its use case's report (data); nothing is read from what it prints, so jobs could
run side by side (the scheduler still runs one at a time, so a day's steps never overlap).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.db import session_scope
from app.core.db_faults import connection_lost
from app.core.models import JobRun, RunStatus, Trigger
from app.services.jobs.alerts import alert_if_new, note_outcome
from app.services.jobs.table import Job
from app.services.reports import Failure, Outcome, Report

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
