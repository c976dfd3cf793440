"""Alembic environment: runs migrations on the engine handed over by ``app.core.schema``.

Plain ``alembic`` (as when writing a migration) gets no engine; it then opens the database
that the settings name.

An upgrade is all or nothing on both databases: a process killed half-way leaves the schema
as it was, and the next ``paperboy migrate`` starts again from there.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from alembic import context
from sqlalchemy import Connection, Engine, event

from app.core.config import get_settings
from app.core.db import make_engine
from app.core.models import Base
from search.database_indexes import in_models

config = context.config


def run_migrations(engine: Engine) -> None:
    with engine.connect() as connection, _sqlite_all_or_nothing(connection):
        sqlite = connection.dialect.name == "sqlite"
        context.configure(
            connection=connection,
            target_metadata=Base.metadata,
            # SQLite cannot ALTER most things in place; batch mode copies the table instead.
            render_as_batch=sqlite,
            # SQLite rolls DDL back too, once each transaction really begins (below).
            transactional_ddl=True,
            compare_type=True,
            include_name=in_models,
        )
        with context.begin_transaction():
            context.run_migrations()
            if sqlite:
                _refuse_broken_foreign_keys(connection)
        connection.commit()


@contextmanager
def _sqlite_all_or_nothing(connection: Connection) -> Iterator[None]:
    """On SQLite, the whole upgrade in one real transaction, with foreign keys off.

    Python's sqlite3 sends BEGIN only before an INSERT, UPDATE or DELETE, so every CREATE or
    ALTER before a migration's first row write committed alone: a process killed there left
    tables that the next run failed to create again. Here BEGIN goes out as the transaction
    starts. Foreign keys are off for the copy-and-drop of a table in batch mode (a DROP would
    delete the rows that refer to it by cascade) and checked before the commit. They are
    switched on again once the upgrade has committed or rolled back (only possible outside a
    transaction), so no connection without them goes back to the pool; one where that fails
    is discarded instead. Discarding it always would lose an in-memory database, whose one
    connection is the database.
    """
    if connection.dialect.name != "sqlite":
        yield
        return
    connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
    connection.commit()
    event.listen(connection, "begin", _begin)
    try:
        yield
    finally:
        event.remove(connection, "begin", _begin)
        _foreign_keys_on_again(connection)


def _foreign_keys_on_again(connection: Connection) -> None:
    try:
        if connection.in_transaction():
            connection.rollback()  # a failed upgrade's: it is undone anyway
        connection.exec_driver_sql("PRAGMA foreign_keys=ON")
        switched = connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        connection.commit()
    except Exception:  # the upgrade's own error, if any, is the one to report
        switched = False
    if not switched:
        connection.invalidate()


def _begin(connection: Connection) -> None:
    # An autocommit block (migration 0008's) sends its own BEGIN.
    if connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
        connection.exec_driver_sql("BEGIN")


def _refuse_broken_foreign_keys(connection: Connection) -> None:
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        raise RuntimeError(f"foreign keys broken by the migration: {broken[:5]}")


@contextmanager
def _engine_from_settings() -> Iterator[Engine]:
    """Plain ``alembic`` (writing a migration): the database ``PAPERBOY_DATABASE_URL`` names."""
    engine = make_engine(get_settings())
    try:
        yield engine
    finally:
        engine.dispose()


handed_over = config.attributes.get("engine")
if isinstance(handed_over, Engine):
    run_migrations(handed_over)
else:
    with _engine_from_settings() as engine:
        run_migrations(engine)
