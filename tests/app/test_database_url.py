"""A database URL that cannot work is one ``refused:`` line that says what to change, exit 1,
no traceback, from ``paperboy migrate``, the scheduler, the web app's factory and any command
(each run here as a real process): the wrong scheme, no server there, no such database, a
role the server refuses, a SQLite file in a folder that is not there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from app.core.db_faults import url_problem
from tests.app.test_settings_check import clean_environment
from tests.conftest import TEST_DATABASE_ENV
from tests.servers import free_port

WEB = ["-m", "uvicorn", "app.web.app:create_app", "--factory", "--port", "0"]
SCHEDULER = ["-m", "app.worker.scheduler"]
ENTRY_POINTS = {
    "paperboy migrate": ["-m", "app.cli.main", "migrate"],
    "paperboy stats": ["-m", "app.cli.main", "stats"],
    "paperboy scheduler": SCHEDULER,
    "paperboy web": WEB,
}
HOW = "postgresql+psycopg://USER:PASSWORD@HOST:5432/DATABASE"


def refusal(url: str, tmp_path: Path, program: str = "paperboy migrate") -> str:
    """The one line ``program`` writes for ``url``, once it exited 1 without a traceback."""
    environment = clean_environment(tmp_path, PAPERBOY_DATABASE_URL=url)
    done = subprocess.run(
        [sys.executable, *ENTRY_POINTS[program]],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    return line


def test_a_postgres_url_is_refused_with_the_scheme_to_write_and_no_password(
    tmp_path: Path,
) -> None:
    line = refusal("postgres://paperboy:s3cret@db.example.org:5432/paperboy", tmp_path)
    assert line == (
        "paperboy migrate: refused: PAPERBOY_DATABASE_URL: postgres:// names no driver "
        "Paperboy has; write postgresql+psycopg://paperboy:***@db.example.org:5432/paperboy"
    )


@pytest.mark.parametrize(
    ("url", "said"),
    [
        (
            "postgresql+psycopg2://u:p@h/d",
            "postgresql+psycopg2:// names no driver Paperboy "
            "has; write postgresql+psycopg://u:***@h/d",
        ),
        (
            "mysql://u:p@h/d",
            "mysql:// is not a database Paperboy runs on; write "
            f"sqlite:////var/lib/paperboy/paperboy.sqlite3 or {HOW}",
        ),
        (
            "paperboy.sqlite3",
            f"is not a database URL; write sqlite:////var/lib/paperboy/paperboy.sqlite3 or {HOW}",
        ),
    ],
)
def test_a_url_of_the_wrong_kind_is_refused_before_connecting(url: str, said: str) -> None:
    assert url_problem(url) == said


@pytest.mark.parametrize(
    "url",
    [
        "sqlite:///var/paperboy.sqlite3",
        "sqlite+pysqlite:///x.db",
        "postgresql://u@h/d",
        "postgresql+psycopg://u:p@h:5433/d",
    ],
)
def test_the_urls_paperboy_connects_with_pass(url: str) -> None:
    assert url_problem(url) is None


@pytest.mark.parametrize("program", list(ENTRY_POINTS))
def test_no_server_at_the_url_is_one_line_from_every_entry_point(
    program: str, tmp_path: Path
) -> None:
    port = free_port()  # nothing listens there
    line = refusal(f"postgresql+psycopg://paperboy:pw@127.0.0.1:{port}/paperboy", tmp_path, program)
    assert line == (
        f"{program}: refused: PAPERBOY_DATABASE_URL: no database server answers at "
        f"127.0.0.1:{port} (Connection refused): start PostgreSQL there, or correct the host "
        "and port in PAPERBOY_DATABASE_URL"
    )


def test_a_sqlite_file_in_a_folder_that_is_not_there_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "no-such-folder"
    line = refusal(f"sqlite:///{folder}/paperboy.sqlite3", tmp_path, "paperboy scheduler")
    assert line == (
        f"paperboy scheduler: refused: PAPERBOY_DATABASE_URL: the folder {folder} of the SQLite "
        f"database does not exist: create it (mkdir -p {folder}) or correct the path"
    )
    assert not folder.exists()


def postgres_server() -> str:
    server = os.environ.get(TEST_DATABASE_ENV)
    if not server:
        pytest.skip("needs a PostgreSQL server")
    return server


def test_a_database_the_server_does_not_have_is_refused_with_how_to_create_it(
    tmp_path: Path,
) -> None:
    server = make_url(postgres_server())
    url = server.set(database="paperboy_not_created").render_as_string(hide_password=False)
    where = f"{server.host}:{server.port or 5432}"
    assert refusal(url, tmp_path) == (
        f"paperboy migrate: refused: PAPERBOY_DATABASE_URL: the server at {where} has no "
        f"database 'paperboy_not_created': create it (createdb --owner={server.username} "
        "paperboy_not_created) or correct the database name in PAPERBOY_DATABASE_URL"
    )


def test_a_role_the_server_does_not_know_is_refused_with_how_to_create_it(
    tmp_path: Path,
) -> None:
    server = make_url(postgres_server())
    url = server.set(username="nobody_here").render_as_string(hide_password=False)
    where = f"{server.host}:{server.port or 5432}"
    # A server that trusts local connections names the missing role; one that asks for a
    # password says only that authentication failed, so as not to tell which roles exist.
    server_words = {
        'role "nobody_here" does not exist',
        'password authentication failed for user "nobody_here"',
    }
    line = refusal(url, tmp_path, "paperboy web")
    prefix = (
        f"paperboy web: refused: PAPERBOY_DATABASE_URL: the server at {where} refused the "
        "role 'nobody_here' ("
    )
    suffix = (
        "): correct the user and password in PAPERBOY_DATABASE_URL, or create the role "
        "(createuser --pwprompt nobody_here)"
    )
    assert line.startswith(prefix)
    assert line.endswith(suffix)
    assert line[len(prefix) : -len(suffix)] in server_words


def test_with_json_logs_the_refusal_is_one_json_line(tmp_path: Path) -> None:
    port = free_port()
    url = f"postgresql+psycopg://paperboy:pw@127.0.0.1:{port}/paperboy"
    environment = clean_environment(tmp_path, PAPERBOY_DATABASE_URL=url, PAPERBOY_LOG_JSON="true")
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "stats"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    entry = json.loads(line)
    assert entry["level"] == "error"
    assert entry["message"].startswith(
        "paperboy stats: refused: PAPERBOY_DATABASE_URL: no database server answers at "
    )
