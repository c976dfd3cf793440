"""What the ``/status`` page and ``/metrics`` show, read from the database in one place.

Per job: the last run, the last success, the next run; today's edition (the newest
announcement day and whether its edition is published); each source's latest ingest status;
counts of papers, subscribers and deliveries; the mails the outbox still keeps (an alert
among them is a red line: the operator was not told); and the open incidents, each a red
line.

Two things are also judged against the clock, since a silent failure leaves no incident:
stale data (the newest stored announcement day is older than the last two listings arXiv's
calendar expects by now: one announcement of grace) and a job that never succeeded although
its trigger fired since jobs first ran here (a misfire grace earlier). Offline mode
(``PAPERBOY_OFFLINE``) turns off the jobs that read arXiv: they are listed as off, their
sources' state and the data's age are not judged. An incident an operator acknowledged
(``paperboy incidents ack JOB``) stays listed, as acknowledged, and is no longer unhealthy;
so is the source trouble the network jobs reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.models import (
    Delivery,
    DeliveryStatus,
    Edition,
    Incident,
    IngestRun,
    IngestRunStatus,
    JobRun,
    Paper,
    RunStatus,
    Subscriber,
    SubscriberStatus,
)
from app.services.jobs.runs import open_incidents
from app.services.jobs.table import SCHEDULES, Schedule, next_run
from app.services.mail_outbox import Unsent, unsent
from ingest.calendar import expected_listing_days, holidays
from search.database_indexes import SearchPlace, search_place

TROUBLED_SOURCE_STATUSES = frozenset(
    {IngestRunStatus.FAILED, IngestRunStatus.STALE, IngestRunStatus.PARTIAL}
)
# The jobs that read the sources (and report their trouble as an incident of their own).
SOURCE_READERS = frozenset({"daily", "signals"})


@dataclass(frozen=True)
class JobStatus:
    name: str
    description: str
    last_run: datetime | None
    last_result: RunStatus | None
    last_error: str | None
    last_success: datetime | None
    next_run: datetime | None
    off: bool = False
    # Never succeeded although it was due since jobs first ran here.
    overdue: bool = False


@dataclass(frozen=True)
class SourceStatus:
    source: str
    category: str | None
    announced_on: date | None
    status: IngestRunStatus
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
    offline: bool = False
    # The listing day the data should reach at least (None: not stale, or nothing to judge).
    stale_before: date | None = None
    # Where searches are answered: a PostgreSQL without pgvector falls back to each process.
    search: SearchPlace = SearchPlace.PROCESS
    # Per kind, the mails the outbox still keeps for the server (alerts among them).
    unsent_mail: tuple[Unsent, ...] = ()

    @property
    def unsent_alerts(self) -> Unsent | None:
        """The alerts the server has not taken yet, if any: the operator has not heard."""
        alerts = [kept for kept in self.unsent_mail if kept.kind == "alert" and kept.count]
        return alerts[0] if alerts else None

    @property
    def unacknowledged(self) -> list[Incident]:
        return [incident for incident in self.incidents if incident.acknowledged_at is None]

    @property
    def acknowledged(self) -> list[Incident]:
        return [incident for incident in self.incidents if incident.acknowledged_at is not None]

    @property
    def sources_judged(self) -> bool:
        """Source trouble counts unless offline or a network job's incident was acknowledged."""
        taken_on = any(incident.key in SOURCE_READERS for incident in self.acknowledged)
        return not self.offline and not taken_on

    @property
    def never_ran(self) -> list[str]:
        """The scheduled jobs (not off) with no run at all here: nothing is known of them, so
        the page cannot call the deployment well, even before they are due."""
        return [job.name for job in self.jobs if not job.off and job.last_run is None]

    @property
    def all_well(self) -> bool:
        """What the page says "All well." for: healthy, every scheduled job has run, and no
        alert is waiting for the mail server."""
        return self.healthy and not self.never_ran and self.unsent_alerts is None

    @property
    def healthy(self) -> bool:
        troubled = self.sources_judged and any(source.troubled for source in self.sources)
        overdue = any(job.overdue for job in self.jobs)
        stale = self.stale_before is not None
        return not (self.unacknowledged or troubled or stale or overdue) and self.edition_published


def gather(session: Session, settings: Settings, now: datetime) -> Status:
    # Papers, not listings: a bulk import stores announcement days without listing rows.
    latest_day = session.scalar(select(func.max(Paper.announced_on)))
    since = session.scalar(select(func.min(JobRun.started_at)))
    return Status(
        jobs=[job_status(session, schedule, settings, now, since) for schedule in SCHEDULES],
        latest_day=latest_day,
        edition_published=latest_day is not None and _has_day_edition(session, latest_day),
        sources=source_statuses(session),
        counts=counts(session),
        incidents=open_incidents(session),
        offline=settings.offline,
        stale_before=None if settings.offline else stale_before(latest_day, settings, now),
        search=search_place(session.get_bind().engine, session.connection()),
        unsent_mail=tuple(unsent(session)),
    )


def stale_before(latest_day: date | None, settings: Settings, now: datetime) -> date | None:
    """The listing day the data lacks when more than one expected announcement is missing."""
    if latest_day is None:
        return None  # "no announcement stored yet" says it already
    margin = timedelta(minutes=settings.announcement_margin_minutes)
    closed = holidays(settings.arxiv_holidays)
    allowed = expected_listing_days(now, closed, margin, 2)[-1]
    return allowed if latest_day < allowed else None


def job_status(
    session: Session,
    schedule: Schedule,
    settings: Settings,
    now: datetime,
    since: datetime | None = None,
) -> JobStatus:
    """``since``: when jobs first ran here; a job due after it should have succeeded once."""
    runs = select(JobRun).where(JobRun.job == schedule.name).order_by(JobRun.id.desc()).limit(1)
    last = session.scalars(runs).first()
    success = select(func.max(JobRun.finished_at)).where(
        JobRun.job == schedule.name, JobRun.status == RunStatus.OK
    )
    last_success = session.scalar(success)
    off = schedule.off(settings)
    return JobStatus(
        name=schedule.name,
        description=schedule.description,
        last_run=None if last is None else last.started_at,
        last_result=None if last is None else last.status,
        last_error=None if last is None else last.error,
        last_success=last_success,
        next_run=next_run(schedule, settings, now),
        off=off,
        overdue=not off and last_success is None and _was_due(schedule, settings, now, since),
    )


def _was_due(schedule: Schedule, settings: Settings, now: datetime, since: datetime | None) -> bool:
    """Whether the job's trigger fired after ``since`` and its misfire grace has passed."""
    if since is None:
        return False
    grace = timedelta(seconds=settings.scheduler_misfire_grace_seconds)
    fire = schedule.trigger(settings).get_next_fire_time(None, since)
    return fire is not None and fire + grace <= now


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
        SourceStatus(
            source=row.source,
            category=row.category,
            announced_on=row.announced_on,
            status=row.status,
            at=row.started_at,
        )
        for row in rows
    ]


def counts(session: Session) -> dict[str, int]:
    def count(query: object) -> int:
        return int(session.scalar(query) or 0)  # type: ignore[call-overload]

    return {
        "papers": count(select(func.count()).select_from(Paper)),
        "subscribers": count(
            select(func.count())
            .select_from(Subscriber)
            .where(Subscriber.status == SubscriberStatus.ACTIVE)
        ),
        "deliveries_sent": count(
            select(func.count()).select_from(Delivery).where(Delivery.status == DeliveryStatus.SENT)
        ),
        "editions": count(select(func.count()).select_from(Edition)),
    }


def _has_day_edition(session: Session, day: date) -> bool:
    query = select(Edition.id).where(Edition.period == "day", Edition.edition_date == day)
    return session.scalars(query.limit(1)).first() is not None
