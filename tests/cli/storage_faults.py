"""Real storage faults for ``paperboy`` processes: a read-only database, a full disk.

- SQLite read-only: the database file and its folder lose their write permission. Root
  ignores permissions, so a root test runs ``paperboy`` as ``nobody`` (the files are theirs).
- SQLite full disk: the database lives on a small tmpfs, filled but for SQLite's 32 KiB
  shared-memory file, so that it opens and its first write fails. Where mounting is refused,
  ``PRAGMA max_page_count`` at the database's size gives SQLite's own "database or disk is
  full" (tests/cli/page_limited.py).
- PostgreSQL read-only: ``ALTER DATABASE ... SET default_transaction_read_only = on``.
- PostgreSQL full disk: the database lives in a tablespace on a small tmpfs, filled up, with
  autovacuum paused (its truncations would free room mid-step); only
  where the server runs on this machine and the test may mount (else the test is skipped).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Protocol

import pytest
from sqlalchemy import Connection, create_engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from app.core.config import Settings
from tests.conftest import PROJECT_ROOT

# What a filled tmpfs leaves for SQLite's shared-memory file (the "-shm" of a WAL database).
SQLITE_SHM_BYTES = 32 * 1024
UNPRIVILEGED = "nobody"


@dataclass
class Paperboy:
    """``paperboy ARGS`` as a process, as the operator runs it (``as_user``: under setpriv)."""

    environment: dict[str, str]
    as_user: list[str] = field(default_factory=list)
    command: list[str] = field(default_factory=lambda: ["-m", "app.cli.main"])

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.as_user, sys.executable, *self.command, *args],
            cwd=PROJECT_ROOT,
            env=self.environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


class Fault(Protocol):
    def cause(self) -> None: ...

    def lift(self) -> None: ...


@dataclass(frozen=True)
class Place:
    """The database of a fault test: its settings, and ``paperboy`` as a process on it."""

    settings: Settings
    paperboy: Paperboy

    @property
    def url(self) -> str:
        return self.settings.resolved_database_url


def environment(url: str, data_dir: Path, **settings: str) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    named = {f"PAPERBOY_{name.upper()}": value for name, value in settings.items()}
    return kept | {"PAPERBOY_DATABASE_URL": url, "PAPERBOY_DATA_DIR": str(data_dir)} | named


def row_counts(url: str) -> dict[str, int]:
    """Rows per table (a fresh engine, closed at once: no SQLite side file stays open)."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            names = inspect(connection).get_table_names()
            return {
                name: connection.execute(text(f'SELECT count(*) FROM "{name}"')).scalar_one()
                for name in names
            }
    finally:
        engine.dispose()


# SQLite, read-only ---------------------------------------------------------------------------


@dataclass
class SqliteReadOnly:
    """The database file and its folder without write permission."""

    database: Path

    def cause(self) -> None:
        self.database.chmod(0o444)
        self.database.parent.chmod(0o555)

    def lift(self) -> None:
        self.database.parent.chmod(0o755)
        self.database.chmod(0o644)


def runner_without_root() -> tuple[str | None, list[str]]:
    """Who runs ``paperboy`` so that permissions hold, and the command prefix that makes it so:
    ``nobody`` (through setpriv) for root, else oneself."""
    if os.geteuid() != 0:
        return None, []
    nobody = pwd.getpwnam(UNPRIVILEGED)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root ignores file permissions, and setpriv is missing to run as nobody")
    prefix = [setpriv, f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]
    probe = subprocess.run(
        [*prefix, sys.executable, "-c", "import app.cli.main"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip(f"{UNPRIVILEGED} cannot run this Python: {probe.stderr.strip()[-200:]}")
    return UNPRIVILEGED, prefix


@contextlib.contextmanager
def open_folder() -> Iterator[Path]:
    """A folder that an unprivileged user can reach (pytest's own are root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="paperboy-faults-"))
    try:
        folder.chmod(0o755)
        yield folder
    finally:
        for path in (folder, *folder.rglob("*")):
            with contextlib.suppress(OSError):
                path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(folder, ignore_errors=True)


def hand_over(folder: Path, user: str | None) -> None:
    """Make ``folder`` and what it holds ``user``'s, as their own database would be."""
    if user is None:
        return
    for path in (folder, *folder.rglob("*")):
        shutil.chown(path, user)


# Full disks ----------------------------------------------------------------------------------


@contextlib.contextmanager
def small_disk(size_mib: int) -> Iterator[Path | None]:
    """A tmpfs of ``size_mib``; None where this process may not mount one."""
    with open_folder() as folder:
        mount = folder / "disk"
        mount.mkdir()
        command = shutil.which("mount")
        mounted = (
            command is not None
            and subprocess.run(
                [command, "-t", "tmpfs", "-o", f"size={size_mib}m,mode=0755", "tmpfs", str(mount)],
                capture_output=True,
                check=False,
            ).returncode
            == 0
        )
        if not mounted:
            yield None
            return
        try:
            yield mount
        finally:
            subprocess.run(["umount", "-l", str(mount)], check=False)


@dataclass
class FilledDisk:
    """A disk filled by a file of zeros, but for ``room`` bytes."""

    mount: Path
    room: int = 0

    @property
    def filler(self) -> Path:
        return self.mount / "filler"

    def cause(self) -> None:
        with self.filler.open("ab", buffering=0) as out:
            # Memory pressure can refuse a tmpfs write before the disk is full: write on
            # until the disk itself says it has no byte left.
            for _ in range(100):
                if shutil.disk_usage(self.mount).free == 0:
                    break
                _write_until_refused(out)
            else:
                pytest.fail(f"{self.mount} keeps refusing writes before it is full")
        size = self.filler.stat().st_size
        os.truncate(self.filler, max(0, size - self.room))

    def lift(self) -> None:
        self.filler.unlink(missing_ok=True)


def _write_until_refused(out: BinaryIO) -> None:
    page = b"\0" * 4096
    with contextlib.suppress(OSError):
        while out.write(page):
            pass


@dataclass
class SqlitePageLimit:
    """SQLite's ``max_page_count`` at the database's size: its own "database or disk is full"
    where no small disk can be mounted. ``paperboy`` runs through tests/cli/page_limited.py."""

    url: str
    paperboy: Paperboy

    def cause(self) -> None:
        engine = create_engine(self.url)
        try:
            with engine.connect() as connection:
                pages = connection.exec_driver_sql("PRAGMA page_count").scalar_one()
        finally:
            engine.dispose()
        self.paperboy.command = ["-m", "tests.cli.page_limited", str(pages)]

    def lift(self) -> None:
        self.paperboy.command = ["-m", "app.cli.main"]


# PostgreSQL ----------------------------------------------------------------------------------


@dataclass
class PostgresReadOnly:
    """Every new transaction of the database read-only, as on a standby."""

    server_url: str
    database: str

    def cause(self) -> None:
        self._alter("SET default_transaction_read_only = on")

    def lift(self) -> None:
        self._alter("RESET default_transaction_read_only")

    def _alter(self, change: str) -> None:
        admin = create_engine(self.server_url, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as connection:
                connection.execute(text(f'ALTER DATABASE "{self.database}" {change}'))
        finally:
            admin.dispose()


def postgres_server_owner(server_url: str) -> int | None:
    """The user id the server runs as, where its data directory is on this machine and this
    role may see where it is; else None."""
    admin = create_engine(server_url)
    try:
        with admin.connect() as connection:
            data = connection.execute(text("SHOW data_directory")).scalar_one()
    except DBAPIError:  # only a superuser (or pg_read_all_settings) may read it
        return None
    finally:
        admin.dispose()
    host = make_url(server_url).host or "localhost"
    if host not in ("127.0.0.1", "localhost", "::1") or not Path(data).is_dir():
        return None
    return Path(data).stat().st_uid


@contextlib.contextmanager
def postgres_tablespace(server_url: str, location: Path, owner: int) -> Iterator[str]:
    """A tablespace in a new folder ``location`` that the server's user ``owner`` owns,
    dropped afterwards."""
    location.mkdir()
    os.chown(location, owner, -1)
    name = f"paperboy_small_{os.getpid()}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f"CREATE TABLESPACE {name} LOCATION '{location}'"))
        yield name
    finally:
        with admin.connect() as connection:
            connection.execute(text(f"DROP TABLESPACE IF EXISTS {name}"))
        admin.dispose()


@contextlib.contextmanager
def postgres_autovacuum_off(server_url: str) -> Iterator[None]:
    """The server's autovacuum paused, and no worker still running: a vacuum truncating a
    table (or a catalog that temporary tables churned) frees room on a filled disk."""
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text("ALTER SYSTEM SET autovacuum = off"))
            connection.execute(text("SELECT pg_reload_conf()"))
            _wait_for_no_autovacuum_worker(connection)
        yield
    finally:
        with admin.connect() as connection:
            connection.execute(text("ALTER SYSTEM RESET autovacuum"))
            connection.execute(text("SELECT pg_reload_conf()"))
        admin.dispose()


def _wait_for_no_autovacuum_worker(connection: Connection) -> None:
    workers = text("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'")
    for _ in range(600):
        if connection.execute(workers).scalar_one() == 0:
            return
        time.sleep(0.1)
    pytest.fail("an autovacuum worker still runs a minute after autovacuum was turned off")


@contextlib.contextmanager
def postgres_database_in(server_url: str, tablespace: str) -> Iterator[str]:
    """A fresh database whose tables live in ``tablespace``, dropped afterwards."""
    name = f"paperboy_faults_{os.getpid()}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}" TABLESPACE {tablespace}'))
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
