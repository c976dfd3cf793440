"""A PostgreSQL restart under a running scheduler and web server: both outlive it.

The server is a throwaway one of this module's own (stopped and started here), never the shared
test server. Whichever database the rest of the suite uses makes no difference here, so these
tests run once, in the SQLite pass, and skip in the PostgreSQL ones.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.date import DateTrigger
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings, get_settings
from app.core.db import make_engine, make_session_factory, session_scope
from app.core.models import JobRun
from app.core.schema import upgrade_to_head
from app.services.jobs.table import Job, Schedule
from app.services.reports import Completed
from app.web.app import create_app
from app.worker import lease
from app.worker.scheduler import SchedulerService
from tests.pg_cluster import Cluster, own_server_binaries, throwaway_cluster
from tests.servers import served
from tests.worker.test_lease import start_scheduler

# What a 503 for a database that went away says, and when to come back.
AWAY_PAGES = {
    "/healthz": "text/plain",
    "/readyz": "application/json",
    "/api/daily_papers": "application/json",
    "/": "text/html",
}


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with throwaway_cluster(own_server_binaries()) as started:
        yield started


@pytest.fixture
def migrated(cluster: Cluster, tmp_path: Path) -> Iterator[tuple[Settings, Engine]]:
    if not cluster.running:  # a test that failed midway left it stopped
        cluster.start()
    settings = get_settings(database_url=cluster.url, data_dir=tmp_path)
    engine = make_engine(settings, "worker")
    upgrade_to_head(engine)
    yield settings, engine
    engine.dispose()


def wait_until(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not {what} after {seconds} s")
        time.sleep(0.1)


def finished_runs(sessions: sessionmaker[Session], job: str) -> list[JobRun]:
    query = select(JobRun).where(JobRun.job == job, JobRun.finished_at.is_not(None))
    with session_scope(sessions) as session:
        return list(session.scalars(query.order_by(JobRun.id)))


def lease_holder(sessions: sessionmaker[Session]) -> str | None:
    with session_scope(sessions) as session:
        return lease.holder(session, datetime.now(UTC))


def status_of(site: str, path: str) -> int:
    try:
        return httpx.get(f"{site}{path}", timeout=5).status_code
    except httpx.HTTPError:
        return 0


def test_a_database_restart_leaves_the_scheduler_running_and_web_answering_503_then_200(
    cluster: Cluster, migrated: tuple[Settings, Engine], tmp_path: Path
) -> None:
    settings, engine = migrated
    sessions = make_session_factory(engine)
    log = tmp_path / "scheduler.log"
    with log.open("wb") as output, served(create_app(settings)) as site:
        scheduler = start_scheduler(settings, "restarted", output)
        try:
            # The hourly digest run is always due within the grace: the holder catches it up.
            wait_until(lambda: len(finished_runs(sessions, "digests")) == 1, 30, "caught up")
            assert lease_holder(sessions) == "restarted"
            cluster.stop()
            for path, kind in AWAY_PAGES.items():
                answer = httpx.get(f"{site}{path}", timeout=5)
                assert answer.status_code == 503, (path, answer.text)
                assert answer.headers["Retry-After"].isdigit(), path
                assert answer.headers["content-type"].startswith(kind), path
                assert str(cluster.port) not in answer.text, path  # no driver's words
            assert "database" in httpx.get(f"{site}/api/daily_papers").json()["error"]["message"]
            time.sleep(2.0)  # longer than the lease: four checks fail, and it expires
            assert scheduler.poll() is None, log.read_text()
            cluster.start()
            wait_until(lambda: lease_holder(sessions) == "restarted", 10, "the lease taken back")
            wait_until(lambda: status_of(site, "/healthz") == 200, 10, "healthy again")
            assert status_of(site, "/readyz") == 200
            time.sleep(1.0)  # the holder has looked at what is due again, and found it done
            assert len(finished_runs(sessions, "digests")) == 1
        finally:
            scheduler.terminate()
            scheduler.wait(timeout=20)
    said = log.read_text()
    assert "Traceback" not in said, said
    assert said.count("lost the database") == 1, said
    assert said.count("reached the database again") == 1, said


class Noted(Completed):
    def lines(self) -> list[str]:
        return []


def once_at(moment: datetime) -> Callable[[Settings], BaseTrigger]:
    return lambda _settings: DateTrigger(run_date=moment, timezone=UTC)


def noted(
    _settings: Settings, _sessions: sessionmaker[Session], _now: datetime, _day: date | None
) -> Noted:
    return Noted()


def test_a_run_that_falls_due_while_the_database_is_away_runs_once_when_it_is_back(
    cluster: Cluster, migrated: tuple[Settings, Engine]
) -> None:
    settings, engine = migrated
    settings = settings.model_copy(update={"scheduler_lease_seconds": 1.5})
    sessions = make_session_factory(engine)
    due = datetime.now(UTC) + timedelta(seconds=2)
    job = Job(Schedule("once", "falls due while the database is away", once_at(due)), noted)
    service = SchedulerService(settings, sessions, owner="holder", jobs=[job])
    stop = threading.Event()
    loop = threading.Thread(target=service.run_forever, args=(stop,))
    loop.start()
    try:
        wait_until(lambda: lease_holder(sessions) == "holder", 10, "holding the lease")
        cluster.stop()
        wait_until(lambda: datetime.now(UTC) > due + timedelta(seconds=1), 10, "past due")
        assert loop.is_alive()
        cluster.start()
        wait_until(lambda: len(finished_runs(sessions, "once")) == 1, 10, "run once")
        time.sleep(1.0)  # several checks later, still once
        runs = finished_runs(sessions, "once")
        assert len(runs) == 1
        assert runs[0].started_at > due
    finally:
        stop.set()
        loop.join(timeout=20)


def all_runs(sessions: sessionmaker[Session], job: str) -> int:
    with session_scope(sessions) as session:
        return len(session.scalars(select(JobRun.id).where(JobRun.job == job)).all())


def test_a_run_the_restart_cut_short_runs_again_once_it_is_back(
    cluster: Cluster, migrated: tuple[Settings, Engine]
) -> None:
    settings, engine = migrated
    settings = settings.model_copy(update={"scheduler_lease_seconds": 1.5})
    sessions = make_session_factory(engine)
    began, finish = threading.Event(), threading.Event()
    bodies: list[datetime] = []

    def held_up(
        _settings: Settings, _sessions: sessionmaker[Session], now: datetime, _day: date | None
    ) -> Noted:
        bodies.append(now)
        began.set()
        finish.wait(10)  # the first run is under way while the database goes
        return Noted()

    due = datetime.now(UTC) - timedelta(seconds=1)  # missed: the scheduler runs it as it starts
    job = Job(Schedule("cut short", "under way when the database goes", once_at(due)), held_up)
    service = SchedulerService(settings, sessions, owner="holder", jobs=[job])
    stop = threading.Event()
    loop = threading.Thread(target=service.run_forever, args=(stop,))
    loop.start()
    try:
        assert began.wait(10)
        cluster.stop()
        finish.set()  # it ends, but cannot record that it did
        time.sleep(1.0)
        cluster.start()
        wait_until(lambda: len(finished_runs(sessions, "cut short")) == 1, 10, "run again")
        time.sleep(1.0)
        assert len(bodies) == 2
        assert len(finished_runs(sessions, "cut short")) == 1
        assert all_runs(sessions, "cut short") == 2  # the first stays unfinished, as a crash's
    finally:
        stop.set()
        loop.join(timeout=20)


def test_a_scheduler_started_before_its_database_waits_for_it_and_says_so(
    cluster: Cluster, migrated: tuple[Settings, Engine], tmp_path: Path
) -> None:
    settings, engine = migrated
    sessions = make_session_factory(engine)
    log = tmp_path / "scheduler.log"
    cluster.stop()
    with log.open("wb") as output:
        scheduler = start_scheduler(settings, "early", output)
        try:
            wait_until(lambda: "waiting up to" in log.read_text(), 30, "waiting")
            assert scheduler.poll() is None, log.read_text()
            cluster.start()
            wait_until(lambda: lease_holder(sessions) == "early", 60, "the lease taken")
        finally:
            scheduler.terminate()
            scheduler.wait(timeout=20)
    said = log.read_text()
    assert "Traceback" not in said, said
    assert said.count("no database server answers yet") == 1, said
    assert "the database server answers after" in said, said


def test_a_scheduler_refused_by_its_database_stops_at_once(
    cluster: Cluster, migrated: tuple[Settings, Engine], tmp_path: Path
) -> None:
    settings, _engine = migrated
    wrong = settings.model_copy(update={"database_url": cluster.url + "_missing"})
    done = start_scheduler(wrong, "refused", subprocess.PIPE)
    output, _ = done.communicate(timeout=60)
    assert done.returncode == 1
    assert b"waiting up to" not in output
    assert b"has no database" in output, output
