"""Indexes and foreign keys a first import builds once at the end instead of row by row.

A first import (the database holds no papers) drops the secondary indexes of the tables it
fills and builds each once at the end, a sort; on PostgreSQL it also drops the link tables'
foreign keys and adds them back at the end, checked in one pass. Nothing else drops a
constraint outside a migration. An import killed before the end leaves them out: every import
first restores whatever is missing.

Layers above ingest keep their own derived data current as rows are written (PostgreSQL's word
index, by triggers); the import is handed them as :class:`DeferredWork`, which it defers and
finishes the same way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol

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


class DeferredWork(Protocol):
    """Work kept row by row that a first import does once, after its rows."""

    def defer(self, connection: Connection) -> None:
        """Stop doing it row by row (in the caller's transaction), marking it as left."""

    def finish(self, sessions: sessionmaker[Session]) -> dict[str, float]:
        """Do what is left, if anything; seconds of each step."""


@contextmanager
def constraints_restored_at_end(
    sessions: sessionmaker[Session], defer: bool, work: Sequence[DeferredWork] = ()
) -> Iterator[dict[str, float]]:
    """Drop the deferred indexes (and foreign keys) and defer ``work`` for the block, and
    restore and finish them after it; yields the seconds of each finishing step, once done."""
    steps: dict[str, float] = {}
    if not defer:
        yield steps
        return
    with session_scope(sessions) as session:
        connection = session.connection()
        for key in _foreign_keys_to_defer(connection):
            connection.execute(DropConstraint(key))
        for index in DEFERRED_INDEXES:
            index.drop(connection, checkfirst=True)
        for deferred in work:
            deferred.defer(connection)
    finishing = work
    try:
        yield steps
    except (KeyboardInterrupt, SystemExit):
        finishing = ()  # stopped by hand: the work waits for the next import or migrate
        raise
    finally:
        steps.update(restore_missing_constraints(sessions, finishing))


def restore_missing_constraints(
    sessions: sessionmaker[Session], work: Sequence[DeferredWork] = ()
) -> dict[str, float]:
    """Build what a first import deferred, if missing (after one that was killed mid-way),
    and finish ``work``; returns the seconds of each step of ``work`` that had any."""
    with session_scope(sessions) as session:
        connection = session.connection()
        for index in DEFERRED_INDEXES:
            index.create(connection, checkfirst=True)
        present = _foreign_key_names(connection)
        for key in _foreign_keys_to_defer(connection):
            if key.name not in present:
                connection.execute(AddConstraint(key))
    steps: dict[str, float] = {}
    for deferred in work:
        steps.update(deferred.finish(sessions))
    return steps


def _foreign_keys_to_defer(connection: Connection) -> tuple[ForeignKeyConstraint, ...]:
    return DEFERRED_FOREIGN_KEYS if connection.dialect.name == "postgresql" else ()


def _foreign_key_names(connection: Connection) -> set[str | None]:
    tables = {key.table.name for key in DEFERRED_FOREIGN_KEYS}
    inspector = inspect(connection)
    return {key["name"] for table in tables for key in inspector.get_foreign_keys(table)}
