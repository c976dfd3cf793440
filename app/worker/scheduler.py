"""``paperboy scheduler``: the process that runs the job table on its schedule.

APScheduler 3.x runs in this process only, never in web workers. Several schedulers may run
(replicas); each tick, every one tries to take or renew the database lease, and only its
holder has its jobs scheduled: the others stand by and take over once the holder's lease
expires (it died) or is released (it stopped cleanly). Jobs run one at a time (one worker
thread), missed runs are coalesced, and a run later than the misfire grace is skipped.
Before each run the holder renews the lease again, so a scheduler that lost it never acts.

A database that goes away (a restart, a failover) does not stop the process: it logs one line,
looks again with back-off, and once the database is back takes the lease again and runs once
what fell due meanwhile (a run is due until one finished after its time: the job table decides,
not the memory of this process).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.date import DateTrigger
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.db_faults import connection_lost, driver_words
from app.core.logs import configure_logging, print_or_log_report
from app.core.models import JobRun, Trigger
from app.core.schema import require_current_schema
from app.core.settings_check import (
    EXIT_REFUSED,
    startup_settings,
)
from app.services.artifacts import EVERY, refuse_broken_artifacts
from app.services.jobs.runs import run_job
from app.services.jobs.table import JOBS, Job, jobs_on
from app.services.jobs.takeover import settle_on_taking_lease
from app.worker import lease
from app.worker.lease import Outage
from app.worker.startup import database_usable

logger = logging.getLogger("paperboy.scheduler")
PROGRAM = "paperboy scheduler"
# The first look after the database went away; later ones back off up to the check interval.
FIRST_RETRY_SECONDS = 1.0


def default_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


class SchedulerService:
    """One scheduler process: the lease loop around an APScheduler that runs only when held."""

    def __init__(
        self,
        settings: Settings,
        sessions: sessionmaker[Session],
        *,
        owner: str | None = None,
        clock: Clock = utc_now,
        jobs: Sequence[Job] = JOBS,
    ) -> None:
        self.settings = settings
        self.sessions = sessions
        self.owner = owner or default_owner()
        self.clock = clock
        self.jobs = jobs_on(settings, jobs)
        self.length = timedelta(seconds=settings.scheduler_lease_seconds)
        self._scheduler: BackgroundScheduler | None = None
        self._outage = Outage(min(FIRST_RETRY_SECONDS, self.check_interval), self.check_interval)
        # Set when a look or a run met the database away: once it is back, what fell due runs.
        self._missed = threading.Event()
        # Standing by, and said so (once, not at every look).
        self._standing_by = False

    @property
    def active(self) -> bool:
        return self._scheduler is not None

    def renew(self) -> bool:
        with session_scope(self.sessions) as session:
            return lease.acquire(session, self.owner, self.clock(), self.length)

    def tick(self) -> bool:
        """Take or renew the lease; start or stop scheduling to match. True if active."""
        held = self.renew()
        if held and not self.active:
            taking = "takes over the lease" if self._standing_by else "holds the lease"
            logger.info("scheduler %s %s; scheduling jobs", self.owner, taking)
            self._standing_by = False
            self._missed.clear()  # starting catches up on its own
            self._settle()
            self._start()
        elif held and self._missed.is_set():
            self._missed.clear()
            self._catch_up()
        elif not held and self.active:
            logger.warning("scheduler %s lost the lease; standing by", self.owner)
            self._standing_by = True
            self._stop()
        elif not held and not self._standing_by:
            self._say_standing_by()
        return held

    def _settle(self) -> None:
        """Before scheduling: no run of a dead scheduler left running, no incident kept open
        for a job that offline mode turns off."""
        with session_scope(self.sessions) as session:
            settled = settle_on_taking_lease(session, self.settings, self.clock())
        if settled.runs_failed or settled.incidents_closed:
            logger.warning(
                "scheduler %s marked %d run(s) left running as failed and closed %d incident(s)"
                " of jobs turned off",
                self.owner,
                settled.runs_failed,
                settled.incidents_closed,
            )

    def _say_standing_by(self) -> None:
        """Once, when it starts as standby: an operator sees both schedulers are alive."""
        with session_scope(self.sessions) as session:
            other = lease.holder(session, self.clock()) or "another scheduler"
        logger.info("scheduler %s stands by: %s holds the lease", self.owner, other)
        self._standing_by = True

    @property
    def check_interval(self) -> float:
        """Seconds between two ticks: a third of the lease, so two renewals may fail in a row
        before it runs out. A standby therefore takes a released lease up to this long after
        (half of it on average), and an expired one up to a lease and a third after the
        holder's last renewal."""
        return self.settings.scheduler_lease_seconds / 3

    def run_forever(self, stop: threading.Event) -> None:
        try:
            while not stop.is_set():
                stop.wait(self.look())
        finally:
            self.shutdown()

    def look(self) -> float:
        """One tick that outlives a database gone away; the seconds until the next look."""
        try:
            self.tick()
        except DBAPIError as error:
            if not connection_lost(error):
                raise
            return self._database_away(error)
        lasted = self._outage.ended(self.clock())
        if lasted is not None:
            logger.info("scheduler %s reached the database again after %.0f s", self.owner, lasted)
        return self.check_interval

    def _database_away(self, error: DBAPIError) -> float:
        if not self._outage.ongoing:
            logger.warning(
                "scheduler %s lost the database (%s); retrying, and running what falls due "
                "once it is back",
                self.owner,
                driver_words(error),
            )
        self._missed.set()
        return self._outage.failed(self.clock())

    def shutdown(self) -> None:
        """Stop cleanly: let a running job finish, then release the lease for a standby."""
        if not self.active:
            return
        self._stop(wait=True)
        try:
            with session_scope(self.sessions) as session:
                lease.release(session, self.owner, self.clock())
        except DBAPIError as error:
            if not connection_lost(error):
                raise
            logger.warning(
                "scheduler %s left its lease to expire: the database is away", self.owner
            )

    def run_now(
        self, job: Job, trigger: Trigger = Trigger.SCHEDULE, due: datetime | None = None
    ) -> None:
        """What a scheduled fire does: run the job if this scheduler still holds the lease (and,
        catching up on the run ``due``, if no run finished since)."""
        try:
            self._run_if_held(job, trigger, due)
        except DBAPIError as error:
            if not connection_lost(error):
                raise
            logger.warning("scheduler %s: %s stopped, the database is away", self.owner, job.name)
            self._missed.set()

    def _run_if_held(self, job: Job, trigger: Trigger, due: datetime | None) -> None:
        if not self.renew():
            logger.warning("scheduler %s skipped %s: lease lost", self.owner, job.name)
            return
        if due is not None and self._ran_since(job.name, due):
            return  # the run it missed finished meanwhile
        outcome = run_job(
            job, self.settings, self.sessions, None, trigger=trigger, clock=self.clock
        )
        if outcome.summary:  # the run's report, as ``paperboy jobs run`` shows it
            print_or_log_report(outcome.summary.splitlines(), job=job.name)

    def _start(self) -> None:
        scheduler = BackgroundScheduler(
            timezone=UTC,
            executors={"default": ThreadPoolExecutor(1)},
            job_defaults={
                "coalesce": True,
                "max_instances": 1,
                "misfire_grace_time": self.settings.scheduler_misfire_grace_seconds,
            },
        )
        now = self.clock()
        for job in self.jobs:
            scheduler.add_job(
                self.run_now,
                job.schedule.trigger(self.settings),
                args=(job,),
                id=job.name,
                name=job.name,
                next_run_time=self._missed_run(job, now),
            )
        scheduler.start()
        self._scheduler = scheduler

    def _stop(self, *, wait: bool = False) -> None:
        scheduler, self._scheduler = self._scheduler, None
        if scheduler is not None:
            scheduler.shutdown(wait=wait)

    def _catch_up(self) -> None:
        """Schedule now, once, each job whose due run the database's absence made it miss.

        Each catch-up checks again as it starts: jobs run one at a time, so a run of the same
        job that was under way meanwhile has finished by then, and counts.
        """
        scheduler, now = self._scheduler, self.clock()
        for job in self.jobs:
            due = self._missed_due(job, now)
            if scheduler is None or due is None:
                continue
            logger.info("scheduler %s catches up on %s, due at %s", self.owner, job.name, due)
            scheduler.add_job(
                self.run_now,
                DateTrigger(now, timezone=UTC),
                args=(job, Trigger.SCHEDULE, due),
                id=f"{job.name} caught up",
                name=job.name,
                replace_existing=True,
            )

    def _missed_run(self, job: Job, now: datetime) -> datetime | None:
        """Now, if the job's last due time (within the grace) passed with no run; else its next.

        The job store is in memory, so a run missed while no scheduler held the lease (all
        down, or a failover) is caught up here, once (coalesced).
        """
        if self._missed_due(job, now) is not None:
            return now
        next_fire: datetime | None = job.schedule.trigger(self.settings).get_next_fire_time(
            None, now
        )
        return next_fire

    def _missed_due(self, job: Job, now: datetime) -> datetime | None:
        """The job's last due time within the grace, if no run finished after it; else None."""
        trigger = job.schedule.trigger(self.settings)
        grace = timedelta(seconds=self.settings.scheduler_misfire_grace_seconds)
        due: datetime | None = trigger.get_next_fire_time(None, now - grace)
        if due is None or due >= now or self._ran_since(job.name, due):
            return None
        return due

    def _ran_since(self, name: str, moment: datetime) -> bool:
        # Only finished runs count: a run its scheduler died in is run again (jobs are idempotent).
        query = select(JobRun.id).where(
            JobRun.job == name, JobRun.started_at >= moment, JobRun.finished_at.is_not(None)
        )
        with session_scope(self.sessions) as session:
            return session.scalars(query.limit(1)).first() is not None


def serve(settings: Settings, owner: str | None = None) -> int:
    """Run a scheduler until SIGTERM or SIGINT; the body of ``paperboy scheduler``."""
    configure_logging(settings)
    if not database_usable(PROGRAM, settings):
        return EXIT_REFUSED
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda _number, _frame: stop.set())
    signal.signal(signal.SIGINT, lambda _number, _frame: stop.set())
    with open_engine(settings, "worker") as engine:
        require_current_schema(engine)
        service = SchedulerService(settings, make_session_factory(engine), owner=owner)
        off = ", ".join(job.name for job in JOBS if job not in service.jobs) or "none"
        logger.info(
            "scheduler %s: %d jobs (off: %s); SIGTERM or Ctrl-C stops it",
            service.owner,
            len(service.jobs),
            off,
        )
        service.run_forever(stop)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m app.worker.scheduler``: the same as ``paperboy scheduler``, without loading every
    command first (a standby scheduler starts in a fraction of the time)."""
    parser = argparse.ArgumentParser(prog="python -m app.worker.scheduler")
    parser.add_argument("--owner", help="this scheduler's name in the lease (default: host:pid)")
    owner = parser.parse_args(argv).owner
    settings = startup_settings(PROGRAM)
    if settings is None or refuse_broken_artifacts(PROGRAM, settings, EVERY):
        return EXIT_REFUSED
    return serve(settings, owner)


if __name__ == "__main__":
    sys.exit(main())
