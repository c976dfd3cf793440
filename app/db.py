"""Engine and sessions: one way to connect, the same code for SQLite and PostgreSQL.

Commit only at the edge: a request dependency or a job opens :func:`session_scope`, the code
inside never commits.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import Engine, Table, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings

Role = Literal["web", "worker", "cli"]

SQLITE_BUSY_TIMEOUT_MS = 30_000
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
    # WAL lets the web app read while a job writes; NORMAL sync is durable enough under WAL.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    # The default 2 MB page cache makes index writes of a bulk import go to disk; 64 MB does not.
    cursor.execute("PRAGMA cache_size=-65536")
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


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def insert_plain_rows(
    session: Session,
    table: Table,
    columns: Sequence[str],
    rows: Sequence[tuple[object, ...]],
    *,
    skip_duplicates: bool = False,
) -> None:
    """``executemany`` of a plain ``INSERT`` with DB-API values (str, int, None only).

    For bulk link rows: it skips SQLAlchemy's per-row parameter processing, which costs more
    than SQLite's own insert. ``ON CONFLICT DO NOTHING`` is understood by SQLite and PostgreSQL.
    """
    if not rows:
        return
    connection = session.connection()
    marker = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    # Names come from the project's own table metadata, never from input.
    sql = (
        f"INSERT INTO {table.name} ({', '.join(columns)}) "  # noqa: S608
        f"VALUES ({', '.join([marker] * len(columns))})"
        + (" ON CONFLICT DO NOTHING" if skip_duplicates else "")
    )
    connection.exec_driver_sql(sql, list(rows))
