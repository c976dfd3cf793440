"""The job table: every scheduled job in one place, with its schedule and what it runs.

Each job calls the same command code a person runs by hand (``app/cli``), is idempotent
per announcement day and returns that command's exit status (0 ok, 2 partial or stale,
1 failed).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from app.core.config import Settings
from app.worker.schedules import SCHEDULES, Schedule

JobBody = Callable[[Settings, date | None], int]


@dataclass(frozen=True)
class Job:
    schedule: Schedule
    body: JobBody

    @property
    def name(self) -> str:
        return self.schedule.name


# The command modules are imported when a job runs, not when the scheduler starts: they load
# the ranking stack (seconds), which a standby scheduler never needs.


def run_daily_chain(settings: Settings, day: date | None) -> int:
    """Ingest, then embed, rank and publish the day; a failed ingest stops the chain."""
    from app.cli import ingest, ranking

    status = ingest.run_ingest(_args(date=day, source="all", categories=None), settings)
    if status == 1:
        print("daily: ingest failed; nothing ranked or published")  # noqa: T201 (the run summary)
        return 1
    target = day or _latest_day(settings)
    if target is None:
        print("daily: no announcement stored yet; nothing to rank")  # noqa: T201
        return status
    return ranking.run_daily(_args(date=target, skip_ingest=True, quiet=True), settings) or status


def refresh_signals(settings: Settings, day: date | None) -> int:
    """Refresh Hugging Face upvotes, then rebuild the day's published editions (day, week,
    month) with them and with the votes cast on Paperboy: signals raise or lower a paper as they
    arrive, and a changed order is a new version of the same editions. The votes are local, so
    the rebuild runs even when Hugging Face could not be read, and alone in offline mode."""
    from app.cli import ingest, ranking

    status = 0
    if not settings.offline:
        status = ingest.run_ingest(_args(date=day, source="hf", categories=None), settings)
    target = day or _latest_day(settings)
    if target is None:
        return status
    return ranking.run_refresh_editions(_args(date=target), settings) or status


def send_digests(settings: Settings, day: date | None) -> int:
    from app.cli import digest

    return digest.run_send_digests(_args(date=day), settings)


def _latest_day(settings: Settings) -> date | None:
    from app.cli.common import job_session
    from ingest.live_store import latest_listing_day

    with job_session(settings) as session:
        return latest_listing_day(session)


def _args(**values: object) -> argparse.Namespace:
    return argparse.Namespace(**values)


_BODIES: dict[str, JobBody] = {
    "daily": run_daily_chain,
    "signals": refresh_signals,
    "digests": send_digests,
}
JOBS: tuple[Job, ...] = tuple(Job(schedule, _BODIES[schedule.name]) for schedule in SCHEDULES)
JOBS_BY_NAME = {job.name: job for job in JOBS}


def jobs_on(settings: Settings, jobs: Sequence[Job] = JOBS) -> list[Job]:
    """The jobs a scheduler runs: all but those offline mode turns off."""
    return [job for job in jobs if not job.schedule.off(settings)]
