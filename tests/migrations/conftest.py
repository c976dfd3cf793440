"""A fresh database for a migration test: a scratch PostgreSQL database when the suite runs
against a server (``PAPERBOY_TEST_DATABASE_URL``), a SQLite file otherwise."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from sqlalchemy import Engine, text

from app.core.config import get_settings
from app.core.db import make_engine
from app.core.schema import alembic_config
from tests.conftest import TEST_DATABASE_ENV
from tests.postgres import scratch_postgres_database


@contextmanager
def database_at(revision: str | None, tmp_path: Path) -> Iterator[Engine]:
    """An empty database upgraded to ``revision`` (None: not migrated at all)."""
    server_url = os.environ.get(TEST_DATABASE_ENV)
    if server_url:
        with (
            scratch_postgres_database(server_url, "paperboy_migration") as url,
            _engine(url, tmp_path, revision) as engine,
        ):
            yield engine
    else:
        with _engine(f"sqlite:///{tmp_path / 'old.sqlite3'}", tmp_path, revision) as engine:
            yield engine


@contextmanager
def database_holding(
    revision: str, tmp_path: Path, *inserts: tuple[str, Mapping[str, object]]
) -> Iterator[Engine]:
    """A database upgraded to ``revision`` holding what each of ``inserts`` (a statement and
    its values) stores: what a migration after it must keep."""
    with database_at(revision, tmp_path) as engine:
        with engine.begin() as connection:
            for statement, values in inserts:
                connection.execute(text(statement), values)
        yield engine


def rows(engine: Engine, query: str) -> list[tuple[object, ...]]:
    """What ``query`` selects, each row a plain tuple."""
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(text(query))]


@contextmanager
def _engine(url: str, tmp_path: Path, revision: str | None) -> Iterator[Engine]:
    engine = make_engine(get_settings(database_url=url, data_dir=tmp_path))
    try:
        if revision is not None:
            command.upgrade(alembic_config(engine), revision)
        yield engine
    finally:
        engine.dispose()
