"""Engine and sessions: one way to connect, the same code for SQLite and PostgreSQL.

Commit only at the edge: a request dependency or a job opens :func:`session_scope`, the code
inside never commits.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import Connection, Engine, Table, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings

Role = Literal["web", "worker", "cli"]

SQLITE_BUSY_TIMEOUT_MS = 30_000
SQLITE_PAGE_SIZE = 16_384
# Page caches in KiB (negative: SQLite's unit for a size rather than a page count).
SQLITE_CACHE_SIZE = -65_536
BULK_LOAD_CACHE_SIZE = -262_144
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
    # Takes effect only on a new, empty database (a no-op afterwards). Abstracts make rows of
    # 1-2 KB: 16 KB pages hold ten of them where 4 KB pages hold two, and a bulk import writes
    # a quarter faster for it.
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


@contextmanager
def bulk_load_sessions(
    sessions: sessionmaker[Session], *, first_load: bool = False
) -> Iterator[sessionmaker[Session]]:
    """Sessions for a bulk loader that writes every parent row before its children itself.

    On SQLite they share one connection with per-row foreign-key checks off (those checks are
    half the cost of inserting author links) and a 256 MB page cache, so a chunk's index pages
    stay in memory. A ``first_load`` (the database holds no papers: there is nothing to lose)
    also commits without waiting for the disk, then syncs everything once at the end: an
    application crash or kill keeps every committed chunk either way; only an operating-system
    crash or power cut during a first load may leave a file to delete and load again. The
    connection gets its usual settings back before it returns to the pool. Other databases get
    the usual sessions.
    """
    engine = sessions.kw["bind"]
    if not isinstance(engine, Engine) or engine.dialect.name != "sqlite":
        yield sessions
        return
    with engine.connect() as connection:
        # PRAGMAs outside any transaction, then commit, so each session begins its own.
        _set_pragmas(connection, foreign_keys="OFF", cache_size=BULK_LOAD_CACHE_SIZE)
        if first_load:
            _set_pragmas(connection, synchronous="OFF")
        try:
            yield sessionmaker(bind=connection, expire_on_commit=False)
        finally:
            connection.rollback()
            _set_pragmas(connection, foreign_keys="ON", cache_size=SQLITE_CACHE_SIZE)
            if first_load:
                _set_pragmas(connection, synchronous="NORMAL")
                # Copy the load into the database file and sync it: durable from here on.
                connection.exec_driver_sql("PRAGMA wal_checkpoint(FULL)")
                connection.commit()


def _set_pragmas(connection: Connection, **values: object) -> None:
    for name, value in values.items():
        # Names and values are this module's constants, never input.
        connection.exec_driver_sql(f"PRAGMA {name}={value}")
    connection.commit()


def insert_plain_rows(
    session: Session,
    table: Table,
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    skip_duplicates: bool = False,
) -> None:
    """Insert many rows of plain values (str, int, None) in bulk, bypassing the ORM.

    For bulk rows, where SQLAlchemy's per-row parameter processing costs more than the
    database's own insert. Only the columns whose type converts values (dates, timestamps) pass
    through their type's bind processor. SQLite gets an ``executemany``; PostgreSQL a ``COPY``
    (passing arrays to ``unnest`` spent most of a bulk import escaping them in Python and
    parsing them on the server). ``skip_duplicates``: rows whose key is taken are left out.
    """
    if not rows:
        return
    connection = session.connection()
    rows = _bound_values(rows, [_bind_processor(table, name, connection) for name in columns])
    _insert_bound_rows(connection, table, columns, rows, skip_duplicates=skip_duplicates)


def insert_columns(session: Session, table: Table, columns: Mapping[str, Sequence[object]]) -> None:
    """:func:`insert_plain_rows`, given column by column (all of one length).

    A converting column's values pass through its type's bind processor once per distinct
    value (a batch's dates repeat: one per announcement day), and the rows are zipped in C.
    """
    connection = session.connection()
    bound = [
        _bound_column(values, _bind_processor(table, name, connection))
        for name, values in columns.items()
    ]
    rows = list(zip(*bound, strict=True))
    if rows:
        _insert_bound_rows(connection, table, list(columns), rows, skip_duplicates=False)


def _insert_bound_rows(
    connection: Connection,
    table: Table,
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    skip_duplicates: bool,
) -> None:
    if connection.dialect.name == "postgresql":
        _copy_rows(connection, table.name, columns, rows, skip_duplicates=skip_duplicates)
        return
    # Names come from the project's own table metadata, never from input.
    target = f"INSERT INTO {table.name} ({', '.join(columns)}) "
    conflict = " ON CONFLICT DO NOTHING" if skip_duplicates else ""
    markers = ", ".join(["?"] * len(columns))
    connection.exec_driver_sql(f"{target}VALUES ({markers}){conflict}", list(rows))


def _copy_rows(
    connection: Connection,
    table: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    skip_duplicates: bool,
) -> None:
    """``COPY`` into ``table`` on the session's own psycopg connection (so, its transaction).

    ``COPY`` knows no ``ON CONFLICT``: rows that may repeat a key go to a temporary table first,
    then into the table with ``INSERT … ON CONFLICT DO NOTHING``.
    """
    names = ", ".join(columns)  # the project's own table metadata, never input
    driver = connection.connection.driver_connection
    if driver is None:  # only for a connection that was closed under us
        raise RuntimeError("the database connection is closed")
    with driver.cursor() as cursor:
        target = f"_loading_{table}" if skip_duplicates else table
        if skip_duplicates:
            cursor.execute(
                f"CREATE TEMP TABLE IF NOT EXISTS {target} (LIKE {table} INCLUDING DEFAULTS)"
            )
        with cursor.copy(f"COPY {target} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        if skip_duplicates:
            cursor.execute(
                f"INSERT INTO {table} ({names}) SELECT {names} FROM {target} "  # noqa: S608
                "ON CONFLICT DO NOTHING"
            )
            cursor.execute(f"TRUNCATE {target}")


def _bind_processor(
    table: Table, column: str, connection: Connection
) -> Callable[[Any], Any] | None:
    # The dialect's own type: a generic Date has no processor, SQLite's formats the date (else
    # the driver's default adapter would, which Python 3.12 deprecates).
    dialect = connection.dialect
    return table.c[column].type.dialect_impl(dialect).bind_processor(dialect)


def _bound_column(
    values: Sequence[object], process: Callable[[Any], Any] | None
) -> Sequence[object]:
    if process is None:
        return values
    # Equal values convert to equal values (a date, a timestamp in UTC), so one each is enough.
    converted = {value: None if value is None else process(value) for value in set(values)}
    return list(map(converted.__getitem__, values))


def _bound_values(
    rows: Sequence[Sequence[object]], processors: Sequence[Callable[[Any], Any] | None]
) -> Sequence[Sequence[object]]:
    # Tuples: SQLAlchemy's executemany takes a list of tuples or of dicts, nothing else.
    converting = [(index, process) for index, process in enumerate(processors) if process]
    if not converting:
        return rows
    bound = []
    for row in rows:
        values = list(row)
        for index, process in converting:
            if values[index] is not None:  # every processor leaves None as it is
                values[index] = process(values[index])
        bound.append(tuple(values))
    return bound


@contextmanager
def scratch_postgres_database(server_url: str, prefix: str) -> Iterator[str]:
    """Create a fresh, uniquely named database on a PostgreSQL server and drop it afterwards.

    For test runs and benchmarks; yields the new database's URL. The server user must be
    allowed to create databases.
    """
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
