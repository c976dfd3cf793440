"""The job table: every scheduled job in one place, with its schedule and the use case it runs.

Each job calls the same use case a person runs by hand (``paperboy run-daily``, the signals
refresh, ``paperboy send-digests``), is idempotent per announcement day and returns that use
case's report. The use cases are imported when a job runs, not when the scheduler starts:
they load the ranking stack (seconds), which a standby scheduler never needs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.services.jobs.schedules import SCHEDULES, Schedule
from app.services.reports import Report

JobBody = Callable[[Settings, sessionmaker[Session], datetime, date | None], Report]


@dataclass(frozen=True)
class Job:
    schedule: Schedule
    body: JobBody

    @property
    def name(self) -> str:
        return self.schedule.name


def run_daily(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None
) -> Report:
    from app.services.daily import run_daily

    return run_daily(settings, sessions, now, day)


def refresh_signals(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None
) -> Report:
    from app.services.signals import refresh_signals

    return refresh_signals(settings, sessions, now, day)


def send_digests(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None
) -> Report:
    from app.services.digests import send_due_digests

    return send_due_digests(settings, sessions, now, day)


_BODIES: dict[str, JobBody] = {
    "daily": run_daily,
    "signals": refresh_signals,
    "digests": send_digests,
}
JOBS: tuple[Job, ...] = tuple(Job(schedule, _BODIES[schedule.name]) for schedule in SCHEDULES)
JOBS_BY_NAME = {job.name: job for job in JOBS}


def jobs_on(settings: Settings, jobs: Sequence[Job] = JOBS) -> list[Job]:
    """The jobs a scheduler runs: all but those offline mode turns off."""
    return [job for job in jobs if not job.schedule.off(settings)]
