"""Exactly one scheduler acts: the lease in the database, with an injected clock and with two
real ``paperboy scheduler`` processes (one killed, the other takes over)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO

import pytest
from sqlalchemy import func, select

from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import JobRun
from app.worker import lease
from app.worker.scheduler import SchedulerService
from tests.conftest import PROJECT_ROOT, Database


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 2, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def pair(database: Database) -> Iterator[tuple[SchedulerService, SchedulerService, Clock]]:
    clock = Clock()
    settings = database.settings.model_copy(update={"scheduler_lease_seconds": 60.0})
    # No jobs: this is about who acts, not what runs.
    first, second = (
        SchedulerService(settings, database.sessions, owner=name, clock=clock, jobs=())
        for name in ("first", "second")
    )
    yield first, second, clock
    first.shutdown()
    second.shutdown()


def holder(database: Database, clock: Clock) -> str | None:
    with session_scope(database.sessions) as session:
        return lease.holder(session, clock())


def test_the_second_scheduler_stands_by_while_the_first_renews_its_lease(
    pair: tuple[SchedulerService, SchedulerService, Clock], database: Database
) -> None:
    first, second, clock = pair
    assert first.tick() and first.active
    for _ in range(5):
        clock.advance(20)
        assert first.tick()
        assert not second.tick() and not second.active
    assert holder(database, clock) == "first"


def test_the_standby_takes_over_when_the_active_lease_expires_and_the_old_one_steps_down(
    pair: tuple[SchedulerService, SchedulerService, Clock], database: Database
) -> None:
    first, second, clock = pair
    assert first.tick()
    clock.advance(59)
    assert not second.tick()
    clock.advance(1)  # the first stopped renewing (it hangs or died): its lease runs out
    assert second.tick() and second.active
    assert holder(database, clock) == "second"
    assert not first.tick() and not first.active


def test_a_clean_shutdown_hands_over_at_once(
    pair: tuple[SchedulerService, SchedulerService, Clock], database: Database
) -> None:
    first, second, clock = pair
    assert first.tick()
    first.shutdown()
    assert holder(database, clock) is None
    assert second.tick()


def start_scheduler(
    settings: Settings, owner: str, output: IO[bytes] | int = subprocess.DEVNULL
) -> subprocess.Popen[bytes]:
    """A real scheduler process; its logs go to ``output`` (none by default)."""
    env = {
        **os.environ,
        "PAPERBOY_DATABASE_URL": settings.resolved_database_url,
        "PAPERBOY_DATA_DIR": str(settings.data_dir),
        "PAPERBOY_SCHEDULER_LEASE_SECONDS": "1.5",
        # Sources and mail point at a closed local port: a job that runs fails fast, offline.
        "PAPERBOY_ARXIV_RSS_URL": "http://127.0.0.1:9",
        "PAPERBOY_ARXIV_API_URL": "http://127.0.0.1:9/api/query",
        "PAPERBOY_HF_API_URL": "http://127.0.0.1:9/api",
        "PAPERBOY_ARXIV_MAX_RETRIES": "0",
        "PAPERBOY_SMTP_PORT": "9",
    }
    command = [sys.executable, "-m", "app.worker.scheduler", "--owner", owner]
    return subprocess.Popen(
        command, cwd=PROJECT_ROOT, env=env, stdout=output, stderr=subprocess.STDOUT
    )


def wait_for_holder(database: Database, wanted: set[str], seconds: float = 30) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with session_scope(database.sessions) as session:
            owner = lease.holder(session, datetime.now(UTC))
        if owner in wanted:
            return owner
        time.sleep(0.1)
    raise AssertionError(f"no scheduler of {wanted} took the lease in {seconds} s")


def digest_runs(database: Database) -> int:
    with session_scope(database.sessions) as session:
        query = (
            select(func.count())
            .select_from(JobRun)
            .where(JobRun.job == "digests", JobRun.finished_at.is_not(None))
        )
        return session.scalar(query) or 0


def test_two_scheduler_processes_one_acts_and_the_other_takes_over_when_it_is_killed(
    database: Database,
) -> None:
    processes = {name: start_scheduler(database.settings, name) for name in ("a", "b")}
    try:
        active = wait_for_holder(database, {"a", "b"})
        standby = "b" if active == "a" else "a"
        # The hourly digest run is always due within the grace: the holder catches it up, once.
        deadline = time.monotonic() + 30
        while digest_runs(database) == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        processes[active].send_signal(signal.SIGKILL)
        processes[active].wait()
        assert wait_for_holder(database, {standby}) == standby
        time.sleep(1.0)  # the new holder has looked at what is due, and found it done
        assert digest_runs(database) == 1
        processes[standby].send_signal(signal.SIGTERM)
        assert processes[standby].wait(timeout=20) == 0
        with session_scope(database.sessions) as session:
            assert lease.holder(session, datetime.now(UTC)) is None  # released on SIGTERM
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=20)


def test_a_standby_takes_a_released_lease_at_its_next_check_a_third_of_the_lease_later(
    pair: tuple[SchedulerService, SchedulerService, Clock],
) -> None:
    first, second, clock = pair
    assert second.check_interval == 20.0  # a third of the 60 s lease
    assert first.tick() and not second.tick()
    first.shutdown()
    clock.advance(second.check_interval)  # the standby's next look: 20 s at most, 10 on average
    assert second.tick()


def test_a_standby_takes_over_a_dead_holder_two_thirds_to_four_thirds_of_a_lease_later(
    pair: tuple[SchedulerService, SchedulerService, Clock],
) -> None:
    first, second, clock = pair
    started = clock.now
    for renewal in (0, 20, 40):  # the holder renews three times, then dies at 41 s
        clock.now = started + timedelta(seconds=renewal)
        assert first.tick()
    died = started + timedelta(seconds=41)
    look = 10.0  # the standby looks between the holder's renewals
    while True:
        clock.now = started + timedelta(seconds=look)
        if second.tick():
            break
        look += second.check_interval
    waited = (clock.now - died).total_seconds()
    assert 40 <= waited <= 80


def _wait_for_line(log: Path, words: str, seconds: float = 30) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = [line for line in log.read_text().splitlines() if words in line]
        if found:
            return found[0]
        time.sleep(0.1)
    raise AssertionError(f"no line with {words!r} in {seconds} s:\n{log.read_text()}")


def test_the_standby_scheduler_says_it_stands_by_and_says_when_it_takes_over(
    database: Database, tmp_path: Path
) -> None:
    logs = {name: tmp_path / f"{name}.log" for name in ("a", "b")}
    processes: dict[str, subprocess.Popen[bytes]] = {}
    try:
        with logs["a"].open("wb") as output:
            processes["a"] = start_scheduler(database.settings, "a", output)
        wait_for_holder(database, {"a"})
        with logs["b"].open("wb") as output:
            processes["b"] = start_scheduler(database.settings, "b", output)
        standing = _wait_for_line(logs["b"], "stands by")
        assert "a holds the lease" in standing
        processes["a"].send_signal(signal.SIGTERM)
        assert processes["a"].wait(timeout=20) == 0
        taking = _wait_for_line(logs["b"], "takes over")
        assert "scheduler b" in taking
        assert "stands by" not in logs["a"].read_text()
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=20)
