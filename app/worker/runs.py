"""Running one job: a job-run row (start, end, status, exit code, printed lines, error), one
summary log line, and the incident bookkeeping that alerts the operator once per incident.

Jobs run one at a time in a process (the scheduler has a single worker thread), so their
printed output can be captured from stdout.
"""

from __future__ import annotations

import contextlib
import io
import logging
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import JobRun
from app.worker.alerts import alert_if_new, note_outcome
from app.worker.table import Job

Clock = Callable[[], datetime]
STATUSES = {0: "ok", 2: "warning"}
logger = logging.getLogger("paperboy.jobs")


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Outcome:
    status: str
    exit_code: int
    summary: str
    error: str | None


def run_job(
    job: Job,
    settings: Settings,
    sessions: sessionmaker[Session],
    day: date | None = None,
    *,
    trigger: str = "manual",
    clock: Clock = utc_now,
) -> Outcome:
    """Run ``job`` once for ``day`` (None: the latest), recording and reporting it."""
    started = clock()
    run_id = _start(sessions, job.name, day, trigger, started)
    outcome = execute(job, settings, day)
    finished = clock()
    with session_scope(sessions) as session:
        _finish(session, run_id, outcome, finished)
        incident = note_outcome(session, job.name, outcome.status, outcome.error, finished)
    alert_if_new(settings, sessions, incident, clock)
    _log(job.name, day, trigger, outcome, (finished - started).total_seconds())
    return outcome


def execute(job: Job, settings: Settings, day: date | None) -> Outcome:
    """Run the job body, capturing what it prints; an exception is a failed run."""
    captured = io.StringIO()
    error: str | None = None
    try:
        with contextlib.redirect_stdout(captured):
            code = job.body(settings, day)
    except Exception as exc:  # a job must never take the scheduler down with it
        code, error = 1, "".join(traceback.format_exception_only(exc)).strip()
        logger.exception("job %s raised", job.name)
    sys.stdout.write(captured.getvalue())
    summary = captured.getvalue().strip()
    if code == 1 and error is None:
        error = _last_line(summary) or "failed"
    return Outcome(STATUSES.get(code, "failed"), code, summary, error)


def _last_line(text: str) -> str:
    return text.splitlines()[-1] if text else ""


def _start(
    sessions: sessionmaker[Session], name: str, day: date | None, trigger: str, now: datetime
) -> int:
    with session_scope(sessions) as session:
        row = JobRun(job=name, run_for=day, trigger=trigger, started_at=now, status="running")
        session.add(row)
        session.flush()
        return row.id


def _finish(session: Session, run_id: int, outcome: Outcome, now: datetime) -> None:
    row = session.get_one(JobRun, run_id)
    row.finished_at = now
    row.status = outcome.status
    row.exit_code = outcome.exit_code
    row.summary = outcome.summary or None
    row.error = outcome.error


def _log(name: str, day: date | None, trigger: str, outcome: Outcome, seconds: float) -> None:
    fields = {
        "job": name,
        "run_for": day.isoformat() if day else None,
        "trigger": trigger,
        "status": outcome.status,
        "exit_code": outcome.exit_code,
        "seconds": round(seconds, 3),
        "error": outcome.error,
    }
    level = logging.INFO if outcome.status == "ok" else logging.WARNING
    text = " ".join(f"{key}={value}" for key, value in fields.items() if value is not None)
    logger.log(level, "job run: %s", text, extra={"fields": fields})
