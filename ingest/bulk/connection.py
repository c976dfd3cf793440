"""The connection a bulk import writes through: on SQLite, settings for loading, not serving.

Every other process keeps the settings :func:`app.core.db.make_engine` gives each connection;
an import switches them for its own connection only and switches them back before that
connection returns to the pool.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session, sessionmaker

from app.core.db import SQLITE_CACHE_SIZE

# A page cache in KiB (negative: SQLite's unit for a size rather than a page count).
BULK_LOAD_CACHE_SIZE = -262_144


@contextmanager
def bulk_load_sessions(
    sessions: sessionmaker[Session], *, first_load: bool = False
) -> Iterator[sessionmaker[Session]]:
    """Sessions for a bulk loader that writes every parent row before its children itself.

    On SQLite they share one connection with per-row foreign-key checks off (those checks are
    much of the cost of inserting author links) and a 256 MB page cache, so a chunk's index pages
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
