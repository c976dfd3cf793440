"""Rows of plain values written in bulk, past SQLAlchemy's per-row parameter processing.

A first import writes some million rows; for those, SQLAlchemy's per-row work costs more than
the database's own insert. Only the columns whose type converts values (dates, timestamps) pass
through their type's bind processor. SQLite gets an ``executemany`` of a prepared statement;
PostgreSQL a ``COPY`` (passing arrays to ``unnest`` spent most of a bulk import escaping them in
Python and parsing them on the server). Everything else inserts with
:func:`app.core.db.insert_plain_rows`, which writes the same rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Table
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session


def insert_rows(
    session: Session,
    table: Table,
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    skip_duplicates: bool = False,
) -> None:
    """Insert rows of plain values (str, int, None) given in ``columns`` order.

    ``skip_duplicates``: rows whose key is taken are left out.
    """
    if not rows:
        return
    connection = session.connection()
    rows = _bound_values(rows, [_bind_processor(table, name, connection) for name in columns])
    _insert_bound_rows(connection, table, columns, rows, skip_duplicates=skip_duplicates)


def insert_columns(session: Session, table: Table, columns: Mapping[str, Sequence[object]]) -> None:
    """:func:`insert_rows`, given column by column (all of one length).

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
    target = f"_loading_{table}" if skip_duplicates else table
    statement = f"COPY {target} ({names}) FROM STDIN"
    dbapi_error = connection.dialect.loaded_dbapi.Error
    try:
        with driver.cursor() as cursor:
            if skip_duplicates:
                cursor.execute(
                    f"CREATE TEMP TABLE IF NOT EXISTS {target} (LIKE {table} INCLUDING DEFAULTS)"
                )
            with cursor.copy(statement) as copy:
                for row in rows:
                    copy.write_row(row)
            if skip_duplicates:
                cursor.execute(
                    f"INSERT INTO {table} ({names}) SELECT {names} FROM {target} "  # noqa: S608
                    "ON CONFLICT DO NOTHING"
                )
                cursor.execute(f"TRUNCATE {target}")
    except dbapi_error as error:
        # Wrapped as SQLAlchemy wraps its own statements' errors, so that the importer stops
        # on it as on any refused chunk (a full disk, a read-only database), not with a trace.
        raise DBAPIError.instance(statement, None, error, dbapi_error) from error


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
