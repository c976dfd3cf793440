"""What the ``/status`` page and ``/metrics`` show, read from the database in one place.

Per job: the last run, the last success, the next run; today's edition (the newest
announcement day and whether its edition is published); each source's latest ingest status;
counts of papers, subscribers and deliveries; and the open incidents, each a red line.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.config import Settings
from app.jobs.schedules import SCHEDULES, Schedule, next_run
from app.models import (
    Delivery,
    Edition,
    Incident,
    IngestRun,
    JobRun,
    Paper,
    Subscriber,
)

TROUBLED_SOURCE_STATUSES = frozenset({"failed", "stale", "partial"})


@dataclass(frozen=True)
class JobStatus:
    name: str
    description: str
    last_run: datetime | None
    last_result: str | None
    last_error: str | None
    last_success: datetime | None
    next_run: datetime | None


@dataclass(frozen=True)
class SourceStatus:
    source: str
    category: str | None
    announced_on: date | None
    status: str
    at: datetime

    @property
    def troubled(self) -> bool:
        return self.status in TROUBLED_SOURCE_STATUSES


@dataclass(frozen=True)
class Status:
    jobs: list[JobStatus]
    latest_day: date | None
    edition_published: bool
    sources: list[SourceStatus]
    counts: dict[str, int]
    incidents: list[Incident]

    @property
    def healthy(self) -> bool:
        troubled = any(source.troubled for source in self.sources)
        return not self.incidents and not troubled and self.edition_published


def gather(session: Session, settings: Settings, now: datetime) -> Status:
    # Papers, not listings: a bulk import stores announcement days without listing rows.
    latest_day = session.scalar(select(func.max(Paper.announced_on)))
    return Status(
        jobs=[job_status(session, schedule, settings, now) for schedule in SCHEDULES],
        latest_day=latest_day,
        edition_published=latest_day is not None and _has_day_edition(session, latest_day),
        sources=source_statuses(session),
        counts=counts(session),
        incidents=list(
            session.scalars(
                select(Incident).where(Incident.closed_at.is_(None)).order_by(Incident.opened_at)
            )
        ),
    )


def job_status(
    session: Session, schedule: Schedule, settings: Settings, now: datetime
) -> JobStatus:
    runs = select(JobRun).where(JobRun.job == schedule.name).order_by(JobRun.id.desc()).limit(1)
    last = session.scalars(runs).first()
    success = select(func.max(JobRun.finished_at)).where(
        JobRun.job == schedule.name, JobRun.status == "ok"
    )
    return JobStatus(
        name=schedule.name,
        description=schedule.description,
        last_run=None if last is None else last.started_at,
        last_result=None if last is None else last.status,
        last_error=None if last is None else last.error,
        last_success=session.scalar(success),
        next_run=next_run(schedule, settings, now),
    )


def source_statuses(session: Session) -> list[SourceStatus]:
    """The newest ingest-log row of each source and category."""
    newest = (
        select(func.max(IngestRun.id))
        .group_by(IngestRun.source, IngestRun.category)
        .scalar_subquery()
    )
    rows = session.scalars(
        select(IngestRun).where(IngestRun.id.in_(newest)).order_by(IngestRun.source, IngestRun.id)
    )
    return [
        SourceStatus(row.source, row.category, row.announced_on, row.status, row.started_at)
        for row in rows
    ]


def counts(session: Session) -> dict[str, int]:
    def count(query: object) -> int:
        return int(session.scalar(query) or 0)  # type: ignore[call-overload]

    return {
        "papers": count(select(func.count()).select_from(Paper)),
        "subscribers": count(
            select(func.count()).select_from(Subscriber).where(Subscriber.status == "active")
        ),
        "deliveries_sent": count(
            select(func.count()).select_from(Delivery).where(Delivery.status == "sent")
        ),
        "editions": count(select(func.count()).select_from(Edition)),
    }


def _has_day_edition(session: Session, day: date) -> bool:
    query = select(Edition.id).where(Edition.period == "day", Edition.edition_date == day)
    return session.scalars(query.limit(1)).first() is not None
