"""A scheduler that starts to schedule settles what a dead one left: its runs still
``running`` are failed, and offline mode closes the incidents of the jobs it turns off."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import delete, select

from app.core.db import session_scope
from app.core.models import Incident, JobRun, RunStatus, Trigger
from app.services.jobs.takeover import ORPHANED
from app.worker.scheduler import SchedulerService
from tests.conftest import Database
from tests.worker.test_lease import Clock

START = datetime(2026, 11, 2, 11, 0, tzinfo=UTC)


@pytest.fixture
def clean(database: Database) -> Iterator[Database]:
    yield database
    with session_scope(database.sessions) as session:
        session.execute(delete(JobRun))
        session.execute(delete(Incident))


def _scheduler(database: Database, name: str, clock: Clock, *, offline: bool) -> SchedulerService:
    settings = database.settings.model_copy(
        update={"scheduler_lease_seconds": 60.0, "offline": offline}
    )
    return SchedulerService(settings, database.sessions, owner=name, clock=clock, jobs=())


def _running(database: Database, trigger: Trigger) -> int:
    with session_scope(database.sessions) as session:
        row = JobRun(job="digests", trigger=trigger, started_at=START, status=RunStatus.RUNNING)
        session.add(row)
        session.flush()
        return row.id


def _run(database: Database, run_id: int) -> tuple[RunStatus, str | None, bool]:
    with session_scope(database.sessions) as session:
        row = session.get_one(JobRun, run_id)
        return row.status, row.error, row.finished_at is not None


def test_the_scheduler_taking_over_fails_the_run_its_dead_holder_left_running(
    clean: Database,
) -> None:
    clock = Clock()
    first = _scheduler(clean, "first", clock, offline=False)
    assert first.tick()
    scheduled, manual = _running(clean, Trigger.SCHEDULE), _running(clean, Trigger.MANUAL)
    # The first is killed mid-run: it never renews again, never finishes the run.
    clock.advance(60)
    second = _scheduler(clean, "second", clock, offline=False)
    try:
        assert second.tick()
    finally:
        second.shutdown()
        first.shutdown()
    assert _run(clean, scheduled) == (RunStatus.FAILED, ORPHANED, True)
    # A run by ``paperboy jobs run`` holds no lease: another process may still be running it.
    assert _run(clean, manual) == (RunStatus.RUNNING, None, False)


def test_offline_mode_closes_the_incident_of_the_job_it_turns_off(clean: Database) -> None:
    with session_scope(clean.sessions) as session:
        for job in ("daily", "digests"):
            session.add(Incident(key=job, opened_at=START, failures=1, last_error="down"))
    scheduler = _scheduler(clean, "offline", Clock(), offline=True)
    try:
        assert scheduler.tick()
    finally:
        scheduler.shutdown()
    with session_scope(clean.sessions) as session:
        still_open = session.scalars(select(Incident.key).where(Incident.closed_at.is_(None)))
        assert list(still_open) == ["digests"]


def test_a_scheduler_online_keeps_the_daily_incident_open(clean: Database) -> None:
    with session_scope(clean.sessions) as session:
        session.add(Incident(key="daily", opened_at=START, failures=1, last_error="down"))
    scheduler = _scheduler(clean, "online", Clock(), offline=False)
    try:
        assert scheduler.tick()
        assert scheduler.tick()  # renewing settles nothing again
    finally:
        scheduler.shutdown()
    with session_scope(clean.sessions) as session:
        assert session.scalar(select(Incident.closed_at).where(Incident.key == "daily")) is None
