"""Engine and sessions: one way to connect, the same code for SQLite and PostgreSQL.

Commit only at the edge: a request dependency or a job opens :func:`session_scope`, the code
inside never commits. A step that inserts a row two requests may both insert at once (a
double click) runs as :func:`unit_of_work`, which runs it again when the other came first.
Every process gets the same connection settings; a bulk import's different ones, and its
faster way of writing rows, live in :mod:`ingest.bulk`.

A SQLite database in use is copied (``paperboy backup``) with SQLite's online backup API:
copying the live file (``cp``) may catch a write half done, or miss what still sits in the
write-ahead log; the backup API copies the pages as one reader sees them, while writers go on.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Literal, TypeVar

from sqlalchemy import Engine, Table, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings

Role = Literal["web", "worker", "cli"]
T = TypeVar("T")

SQLITE_BUSY_TIMEOUT_MS = 30_000
SQLITE_PAGE_SIZE = 16_384
# Page caches in KiB (negative: SQLite's unit for a size rather than a page count).
SQLITE_CACHE_SIZE = -65_536
# A unit of work that lost a race for a unique key runs again and finds the winner's row. Each
# lost race is for a row another request has committed, so the next run gets past that key; a
# step inserts at most a reader's row and one row under it, so a third run is the last needed.
UNIT_OF_WORK_RUNS = 3
# PostgreSQL's SQLSTATE for a unique key refusing a row; SQLite names it (primary keys apart).
_UNIQUE_VIOLATION = "23505"
_SQLITE_UNIQUE = frozenset({"SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"})
# Connections kept per process; web workers serve requests concurrently, jobs mostly need one.
_POOL_SIZES: dict[Role, int] = {"web": 10, "worker": 3, "cli": 2}


def make_engine(settings: Settings, role: Role = "cli") -> Engine:
    """Create the engine for one process role."""
    url = make_url(settings.resolved_database_url)
    if url.get_backend_name() == "sqlite":
        return _make_sqlite_engine(url.render_as_string(hide_password=False))
    return create_engine(url, pool_pre_ping=True, pool_size=_POOL_SIZES[role])


@contextmanager
def open_engine(settings: Settings, role: Role = "cli") -> Iterator[Engine]:
    """An engine for the length of one command; its connections are closed afterwards."""
    engine = make_engine(settings, role)
    try:
        yield engine
    finally:
        engine.dispose()


def _make_sqlite_engine(url: str) -> Engine:
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
    event.listen(engine, "connect", _configure_sqlite_connection)
    return engine


def _configure_sqlite_connection(dbapi_connection: Any, _record: object) -> None:
    cursor = dbapi_connection.cursor()
    # Takes effect only on a new, empty database (a no-op afterwards). Abstracts make long
    # rows: 16 KB pages hold several of them where 4 KB pages hold few, and a bulk import
    # writes faster for it.
    cursor.execute(f"PRAGMA page_size={SQLITE_PAGE_SIZE}")
    # WAL lets the web app read while a job writes; NORMAL sync is durable enough under WAL.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    # The default 2 MB page cache sends index writes to disk mid-transaction; 64 MB does not.
    cursor.execute(f"PRAGMA cache_size={SQLITE_CACHE_SIZE}")
    cursor.close()


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)


@contextmanager
def session_scope(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One unit of work: commit if the block succeeds, roll back if it raises."""
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def unit_of_work(factory: sessionmaker[Session], work: Callable[[Session], T]) -> T:
    """Run ``work`` in one :func:`session_scope`; when a unique key refuses a row because
    another request inserted it first, roll back and run ``work`` again (it finds that row).

    So a step that makes a row if missing answers every one of many identical requests at
    once as the first, and makes the row once. ``work`` must be safe to run again from the
    start: it only reads and writes through ``session``.
    """
    for _ in range(UNIT_OF_WORK_RUNS - 1):
        try:
            with session_scope(factory) as session:
                return work(session)
        except IntegrityError as error:
            if not is_unique_violation(error):
                raise
    with session_scope(factory) as session:
        return work(session)


def is_unique_violation(error: IntegrityError) -> bool:
    """Whether a unique key or primary key refused the row (not a foreign key, a NOT NULL)."""
    cause = error.orig
    if getattr(cause, "sqlstate", None) == _UNIQUE_VIOLATION:
        return True
    return getattr(cause, "sqlite_errorname", None) in _SQLITE_UNIQUE


def insert_plain_rows(
    session: Session,
    table: Table,
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    skip_duplicates: bool = False,
) -> None:
    """Insert rows given as values in ``columns`` order, in one ``executemany``.

    ``skip_duplicates``: rows whose key is taken are left out (``ON CONFLICT DO NOTHING``, which
    SQLite and PostgreSQL both know). A first import's faster way is in :mod:`ingest.bulk.rows`.
    """
    if not rows:
        return
    statement = _dialect_insert(session, table)
    if skip_duplicates:
        statement = statement.on_conflict_do_nothing()
    session.execute(statement, [dict(zip(columns, row, strict=True)) for row in rows])


def _dialect_insert(session: Session, table: Table) -> sqlite.Insert | postgresql.Insert:
    if session.get_bind().dialect.name == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


def back_up_sqlite(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target``, written beside it first so a cut-short copy never passes
    for a whole one."""
    partial = target.with_name(f"{target.name}.partial")
    partial.unlink(missing_ok=True)
    with closing(sqlite3.connect(source)) as live, closing(sqlite3.connect(partial)) as copy:
        live.backup(copy)
    partial.replace(target)
