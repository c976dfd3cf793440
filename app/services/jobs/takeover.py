"""What a scheduler settles as it starts to schedule: runs left ``running`` by a scheduler
that died, and incidents of jobs that offline mode turns off.

Only the lease's holder runs scheduled jobs, and a holder that starts scheduling runs none
yet, so a scheduled run still ``running`` then was left by a process that stopped before it
finished (killed, or its lease ran out). It is marked failed, or it would read ``running``
for good; the catch-up that follows runs what it missed. A job offline mode turns off never
runs again while it is on, so its open incident could never close by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.models import Incident, JobRun, RunStatus, Trigger
from app.services.jobs.table import JOBS, Job

ORPHANED = "the scheduler running it stopped before it finished (its lease was taken over)"


@dataclass(frozen=True)
class Settled:
    """How many dead runs were marked failed and incidents of jobs turned off were closed."""

    runs_failed: int
    incidents_closed: int


def settle_on_taking_lease(
    session: Session, settings: Settings, now: datetime, jobs: tuple[Job, ...] = JOBS
) -> Settled:
    """Fail the scheduled runs a dead scheduler left running; close the incidents of the
    jobs that ``settings`` turn off."""
    failed = session.execute(
        update(JobRun)
        .where(JobRun.status == RunStatus.RUNNING, JobRun.trigger == Trigger.SCHEDULE)
        .values(status=RunStatus.FAILED, finished_at=now, exit_code=1, error=ORPHANED)
    )
    off = [job.name for job in jobs if job.schedule.off(settings)]
    closed = session.execute(
        update(Incident)
        .where(Incident.key.in_(off), Incident.closed_at.is_(None))
        .values(closed_at=now)
    )
    return Settled(_count(failed), _count(closed))


def _count(result: object) -> int:
    return int(getattr(result, "rowcount", 0) or 0)
