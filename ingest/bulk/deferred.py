"""Indexes and foreign keys a first import builds once at the end instead of row by row.

A first import (the database holds no papers) drops the secondary indexes of the tables it
fills and builds each once at the end, a sort; on PostgreSQL it also drops the link tables'
foreign keys and adds them back at the end, checked in one pass. Nothing else drops a
constraint outside a migration. An import killed before the end leaves them out: every import
first restores whatever is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, ForeignKeyConstraint, Index, inspect
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.schema import AddConstraint, DropConstraint

from app.core.db import session_scope
from app.core.models import Base, Paper, PaperAuthor, PaperCategory

_FILLED = tuple(
    Base.metadata.tables[model.__tablename__] for model in (Paper, PaperAuthor, PaperCategory)
)
_LINKS = _FILLED[1:]
# The secondary indexes of the tables an import fills (primary keys stay: inserts need them).
DEFERRED_INDEXES: tuple[Index, ...] = tuple(index for table in _FILLED for index in table.indexes)
# The link tables' foreign keys, on PostgreSQL: checking each link's keys row by row took most of
# a first import there; added back at the end, they are checked in one pass. (SQLite's bulk
# connection turns the checks off instead: its constraints cannot be dropped.)
DEFERRED_FOREIGN_KEYS: tuple[ForeignKeyConstraint, ...] = tuple(
    key for table in _LINKS for key in table.foreign_key_constraints
)


@contextmanager
def constraints_restored_at_end(sessions: sessionmaker[Session], defer: bool) -> Iterator[None]:
    """Drop the deferred indexes (and foreign keys) for the block, and restore them after it."""
    if not defer:
        yield
        return
    with session_scope(sessions) as session:
        connection = session.connection()
        for key in _foreign_keys_to_defer(connection):
            connection.execute(DropConstraint(key))
        for index in DEFERRED_INDEXES:
            index.drop(connection, checkfirst=True)
    try:
        yield
    finally:
        restore_missing_constraints(sessions)


def restore_missing_constraints(sessions: sessionmaker[Session]) -> None:
    """Build what a first import deferred, if missing (after one that was killed mid-way)."""
    with session_scope(sessions) as session:
        connection = session.connection()
        for index in DEFERRED_INDEXES:
            index.create(connection, checkfirst=True)
        present = _foreign_key_names(connection)
        for key in _foreign_keys_to_defer(connection):
            if key.name not in present:
                connection.execute(AddConstraint(key))


def _foreign_keys_to_defer(connection: Connection) -> tuple[ForeignKeyConstraint, ...]:
    return DEFERRED_FOREIGN_KEYS if connection.dialect.name == "postgresql" else ()


def _foreign_key_names(connection: Connection) -> set[str | None]:
    tables = {key.table.name for key in DEFERRED_FOREIGN_KEYS}
    inspector = inspect(connection)
    return {key["name"] for table in tables for key in inspector.get_foreign_keys(table)}
