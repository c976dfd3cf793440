"""A read-only database or a full disk during import, rank, publish and send-digests: one
line that says what happened and what to do, exit status 1, nothing stored before is lost,
and the same command completes the work once the fault is lifted.

Each fault is a real one (tests/cli/storage_faults.py), met by ``paperboy`` run as a process
as the operator runs it; the rerun after the fault is lifted runs in this process (the same
command, the same settings, without a second start-up).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from aiosmtpd.controller import Controller

from app.cli.main import main
from app.core.config import get_settings
from app.core.db import make_engine, make_session_factory, session_scope
from app.core.schema import upgrade_to_head
from ingest.bulk.importer import import_file
from ranking.embeddings import check_matrix, import_matrix
from tests.cli.storage_faults import (
    SQLITE_SHM_BYTES,
    Fault,
    FilledDisk,
    Paperboy,
    Place,
    PostgresReadOnly,
    SqlitePageLimit,
    SqliteReadOnly,
    environment,
    hand_over,
    open_folder,
    postgres_autovacuum_off,
    postgres_database_in,
    postgres_server_owner,
    postgres_tablespace,
    row_counts,
    runner_without_root,
    small_disk,
)
from tests.conftest import FIXTURES, SAMPLE_PATH, TEST_DATABASE_ENV
from tests.digest.conftest import RecordingHandler
from tests.digest.editions import add_subscriber
from tests.postgres import scratch_postgres_database
from tests.ranking.conftest import SAMPLE_IDS, SAMPLE_MATRIX
from tests.servers import free_port

DAY = "2025-12-19"
READER = "reader@example.org"
READ_ONLY_SAID = "the database is read-only"
FULL_SAID = "the database's disk is full"
SETTINGS = {
    "smtp_host": "127.0.0.1",
    "secret_key": "test-secret-key-for-fault-tests",
    "public_base_url": "https://paperboy.test",
    "mail_from": "Paperboy <digest@paperboy.test>",
    "topic_labels_by_meaning": "false",
}


@dataclass(frozen=True)
class Step:
    command: str
    args: tuple[str, ...]
    # The table the step fills: untouched by a failed run, grown by the rerun.
    table: str


STEPS = (
    Step("import", (str(FIXTURES / "kaggle_snapshot_head_50.jsonl"), "--quiet"), "papers"),
    Step("rank", ("--date", DAY, "--quiet"), "editions"),
    Step("publish", ("--date", DAY), "editions"),
    Step("send-digests", ("--date", DAY), "deliveries"),
)


@dataclass(frozen=True)
class Smtp:
    handler: RecordingHandler
    port: int


@pytest.fixture
def smtp() -> Iterator[Smtp]:
    handler, port = RecordingHandler(), free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield Smtp(handler, port)
    finally:
        controller.stop()


def prepared(url: str, data_dir: Path, smtp: Smtp, as_user: list[str] | None = None) -> Place:
    """A migrated database with the sample's papers and vectors and one reader due a digest."""
    values = SETTINGS | {"smtp_port": str(smtp.port)}
    settings = get_settings(database_url=url, data_dir=data_dir, **values)
    engine = make_engine(settings)
    try:
        upgrade_to_head(engine)
        sessions = make_session_factory(engine)
        import_file(SAMPLE_PATH, sessions)
        vectors, ids = check_matrix(np.load(SAMPLE_MATRIX), json.loads(SAMPLE_IDS.read_text()))
        with session_scope(sessions) as session:
            import_matrix(session, vectors, ids, settings.embedding_model)
        add_subscriber(sessions, READER, delivery_hour=0)
    finally:
        engine.dispose()
    return Place(settings, Paperboy(environment(url, data_dir, **values), as_user or []))


@pytest.fixture
def read_only(smtp: Smtp, tmp_path: Path) -> Iterator[tuple[Place, Fault]]:
    server_url = os.environ.get(TEST_DATABASE_ENV)
    if server_url:
        with scratch_postgres_database(server_url, "paperboy_faults") as url:
            database = url.rsplit("/", 1)[1]
            yield prepared(url, tmp_path, smtp), PostgresReadOnly(server_url, database)
        return
    user, as_user = runner_without_root()
    with open_folder() as folder:
        data_dir, home = folder / "data", folder / "home"
        data_dir.mkdir()
        home.mkdir()  # where onnxruntime keeps its telemetry id
        place = prepared(f"sqlite:///{data_dir / 'paperboy.sqlite3'}", data_dir, smtp, as_user)
        place.paperboy.environment["HOME"] = str(home)
        hand_over(data_dir, user)
        hand_over(home, user)
        yield place, SqliteReadOnly(data_dir / "paperboy.sqlite3")


@pytest.fixture
def full_disk(smtp: Smtp, tmp_path: Path) -> Iterator[tuple[Place, Fault]]:
    server_url = os.environ.get(TEST_DATABASE_ENV)
    if server_url:
        yield from _postgres_full_disk(server_url, smtp, tmp_path)
        return
    with small_disk(32) as mount:
        if mount is None:
            place = prepared(f"sqlite:///{tmp_path / 'paperboy.sqlite3'}", tmp_path, smtp)
            yield place, SqlitePageLimit(place.url, place.paperboy)
            return
        place = prepared(f"sqlite:///{mount / 'paperboy.sqlite3'}", mount, smtp)
        yield place, FilledDisk(mount, room=SQLITE_SHM_BYTES)


def _postgres_full_disk(
    server_url: str, smtp: Smtp, data_dir: Path
) -> Iterator[tuple[Place, Fault]]:
    owner = postgres_server_owner(server_url)
    if owner is None:
        pytest.skip("no disk to fill: the server's files are not on this machine (or hidden)")
    with small_disk(128) as mount:
        if mount is None:
            pytest.skip("this process may not mount a tmpfs to hold a tablespace")
        with (
            postgres_autovacuum_off(server_url),
            postgres_tablespace(server_url, mount / "tablespace", owner) as tablespace,
            postgres_database_in(server_url, tablespace) as url,
        ):
            yield prepared(url, data_dir, smtp), FilledDisk(mount)


def assert_each_step_stops_in_one_line_and_the_rerun_completes(
    place: Place, fault: Fault, said: str, steps: tuple[Step, ...] = STEPS
) -> None:
    for step in steps:
        before = row_counts(place.url)
        fault.cause()
        try:
            failed = place.paperboy(step.command, *step.args)
        finally:
            fault.lift()
        assert failed.returncode == 1, failed
        assert "Traceback" not in failed.stderr, failed.stderr[-3000:]
        assert len(failed.stderr.splitlines()) == 1, failed.stderr
        [line] = failed.stderr.splitlines()
        assert line.startswith(f"paperboy {step.command}: ") and said in line
        assert "run the command again" in line
        # A summary the failed run printed (import's) counts nothing as stored.
        assert all(" new 0," in printed for printed in failed.stdout.splitlines())
        after = row_counts(place.url)
        assert after[step.table] == before[step.table]
        assert all(after[table] >= count for table, count in before.items())
        assert main([step.command, *step.args], place.settings) == 0
        assert row_counts(place.url)[step.table] > before[step.table]


def test_a_read_only_database_stops_each_step_in_one_line_and_the_rerun_completes(
    read_only: tuple[Place, Fault], smtp: Smtp
) -> None:
    assert_each_step_stops_in_one_line_and_the_rerun_completes(*read_only, READ_ONLY_SAID)
    assert [message["To"] for message in smtp.handler.messages] == [READER]


def test_a_full_disk_stops_each_step_in_one_line_and_the_rerun_completes(
    full_disk: tuple[Place, Fault], smtp: Smtp
) -> None:
    assert_each_step_stops_in_one_line_and_the_rerun_completes(*full_disk, FULL_SAID)
    assert [message["To"] for message in smtp.handler.messages] == [READER]


def on_sqlite() -> None:
    if os.environ.get(TEST_DATABASE_ENV):
        pytest.skip("a SQLite file's own fault")


def test_a_disk_with_no_byte_left_is_named_full_not_a_disk_io_error(
    smtp: Smtp, tmp_path: Path
) -> None:
    # SQLite cannot even make its shared-memory file, and says only "disk I/O error".
    on_sqlite()
    with small_disk(32) as mount:
        if mount is None:
            pytest.skip("this process may not mount a tmpfs")
        place = prepared(f"sqlite:///{mount / 'paperboy.sqlite3'}", mount, smtp)
        assert_each_step_stops_in_one_line_and_the_rerun_completes(
            place, FilledDisk(mount), f"{FULL_SAID} (disk I/O error)", STEPS[:1]
        )


def test_sqlite_s_page_limit_stands_for_a_full_disk_where_none_can_be_mounted(
    smtp: Smtp, tmp_path: Path
) -> None:
    on_sqlite()
    place = prepared(f"sqlite:///{tmp_path / 'paperboy.sqlite3'}", tmp_path, smtp)
    fault = SqlitePageLimit(place.url, place.paperboy)
    assert_each_step_stops_in_one_line_and_the_rerun_completes(
        place, fault, f"{FULL_SAID} (database or disk is full)", STEPS[:1]
    )
