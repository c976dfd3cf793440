"""PostgreSQL's own search indexes: meaning (pgvector ``halfvec`` + HNSW) and words (tsvector).

On PostgreSQL with the ``vector`` extension, each stored embedding is also kept as a
``halfvec`` in ``paper_embeddings.embedding`` (no fixed dimension, so any model fits), with a
partial HNSW index per dimension (:func:`ensure_vector_index`). Every paper's words are kept in
``paper_search.document`` (title weighted A, abstract B, author names C) behind a GIN index,
maintained by triggers on ``papers`` and ``paper_authors``, so every writer keeps it current
without knowing of it. Neither is part of the ORM models: SQLite has neither, and the models
describe what every store shares (:func:`in_models` keeps them out of the comparison).

Without the extension the word index is still made, and search stays in the process
(``search.in_process``); :func:`install` adds the rest once the extension is installed.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, NamedTuple
from weakref import WeakKeyDictionary

import numpy as np
from sqlalchemy import Connection, Engine, text
from sqlalchemy.dialects.postgresql import base as postgresql
from sqlalchemy.exc import DBAPIError
from sqlalchemy.types import UserDefinedType

from app.core.vectors import Matrix, unpack
from search.word_index import SEARCH_TABLE, install_words
from search.word_index_load import finish_in_transaction

VECTOR_COLUMN = "embedding"
# The dimension of the default model (all-MiniLM-L6-v2): indexed when the column is made.
DEFAULT_DIMENSIONS = 384
BACKFILL_PAGE = 1_000
# What an HNSW build may use: enough to hold the graph of a large corpus in memory.
BUILD_MEMORY = "1GB"
# Binary COPY: its signature, no flags, no header extension; times count from this instant.
COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
POSTGRES_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
MISSING_LINE = (
    "pgvector (the PostgreSQL extension `vector`) is not installed: search and similar papers "
    "fall back to the in-process index; install it and run `paperboy migrate` again to search "
    "in the database"
)


class EmbeddingRow(NamedTuple):
    """One row of ``paper_embeddings`` as stored (the vector packed as float32)."""

    arxiv_id: str
    model: str
    text_hash: str
    dimensions: int
    vector: bytes
    computed_at: datetime


class SearchPlace(StrEnum):
    """Where search and similar papers are answered."""

    DATABASE = "database"  # PostgreSQL with pgvector
    PROCESS = "process"  # SQLite: the in-process index, by design
    FALLBACK = "fallback"  # PostgreSQL without pgvector: the in-process index instead


PLACE_LINES = {
    SearchPlace.DATABASE: "search runs in the database (pgvector)",
    SearchPlace.PROCESS: "search runs in this process (SQLite keeps no vectors)",
    SearchPlace.FALLBACK: MISSING_LINE,
}


def search_place(engine: Engine, connection: Connection | None = None) -> SearchPlace:
    """Where this database's searches are answered (as :mod:`search.searcher` chooses);
    asked through ``connection`` when one is in hand (a request's, which may hold its
    server's last free one)."""
    if engine.dialect.name != "postgresql":
        return SearchPlace.PROCESS
    found = has_vector_column(engine, connection)
    return SearchPlace.DATABASE if found else SearchPlace.FALLBACK


class HalfVector(UserDefinedType[str]):
    """pgvector's ``halfvec``, named so reflecting ``paper_embeddings`` knows the type."""

    cache_ok = True

    def get_col_spec(self, **_: Any) -> str:
        return "halfvec"


postgresql.ischema_names.setdefault("halfvec", HalfVector)

# Per engine (weakly: tests make and drop many): whether it has the column, dimensions indexed.
_known: WeakKeyDictionary[Engine, bool] = WeakKeyDictionary()
_indexed: WeakKeyDictionary[Engine, set[int]] = WeakKeyDictionary()


def index_name(dimensions: int) -> str:
    return f"ix_paper_embeddings_embedding_{dimensions}"


def has_vector_column(engine: Engine, connection: Connection | None = None) -> bool:
    """Whether this database keeps ``halfvec`` embeddings (asked once per engine, through
    ``connection`` if given)."""
    if engine.dialect.name != "postgresql":
        return False
    if engine not in _known:
        if connection is not None:
            _known[engine] = _column_exists(connection)
        else:
            with engine.connect() as opened:
                _known[engine] = _column_exists(opened)
    return _known[engine]


def complete(engine: Engine) -> str | None:
    """After migrating: finish the word index a killed first import left, add the vectors if
    pgvector came since; a line to print if still not.

    Migration 0014 made them once (from its own copy of :func:`install`); a server that gains
    the extension later gets the column and index from the next ``paperboy migrate``, which
    calls this.
    """
    if engine.dialect.name != "postgresql":
        return None
    with engine.begin() as connection:
        # The word index of a first import killed before it was built.
        finish_in_transaction(connection)
    forget(engine)
    if not has_vector_column(engine):
        with engine.begin() as connection:
            install(connection)
        forget(engine)
    return None if has_vector_column(engine) else MISSING_LINE


def forget(engine: Engine) -> None:
    """Ask again next time (after a migration changed what :func:`has_vector_column` saw)."""
    _known.pop(engine, None)
    _indexed.pop(engine, None)


def _column_exists(connection: Connection) -> bool:
    query = text(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = 'paper_embeddings' AND column_name = :column"
    )
    return connection.execute(query, {"column": VECTOR_COLUMN}).first() is not None


def halfvec_text(vector: Matrix) -> str:
    """pgvector's text form of a vector (``[0.1,0.2]``), cast to ``halfvec`` in SQL."""
    return "[" + ",".join(f"{value:.6g}" for value in np.asarray(vector, dtype=np.float32)) + "]"


def store_vectors(connection: Connection, model: str, rows: Sequence[tuple[str, Matrix]]) -> None:
    """Write the ``halfvec`` copies of stored embeddings, indexing a new dimension first."""
    indexed = _indexed.setdefault(connection.engine, set())
    for dimensions in {int(vector.shape[0]) for _, vector in rows} - indexed:
        # Asked first: CREATE INDEX IF NOT EXISTS would lock out other writers of the table
        # until this transaction ends, even when the index is there.
        found = text("SELECT to_regclass(:name) IS NOT NULL")
        if not connection.execute(found, {"name": index_name(dimensions)}).scalar_one():
            ensure_vector_index(connection, dimensions)
        indexed.add(dimensions)
    _update(connection, model, list(rows))


def holds_vectors(connection: Connection, dimensions: int) -> bool:
    """Whether any embedding of this width is stored (an empty store loads in bulk)."""
    query = text("SELECT EXISTS (SELECT 1 FROM paper_embeddings WHERE dimensions = :size)")
    return bool(connection.execute(query, {"size": int(dimensions)}).scalar_one())


def drop_vector_index(connection: Connection, dimensions: int) -> None:
    """Drop the HNSW index of one width, to build it once after a bulk load."""
    connection.execute(text(f"DROP INDEX IF EXISTS {index_name(int(dimensions))}"))


def build_vector_index(connection: Connection, dimensions: int) -> None:
    """Build the HNSW index of one width over what is stored, in this transaction.

    HNSW builds far faster when its graph fits in ``maintenance_work_mem``; the server's
    default is sized for small indexes, so the build raises it for this transaction only.
    """
    connection.execute(text(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'"))
    ensure_vector_index(connection, dimensions)


def copy_embeddings(connection: Connection, rows: Sequence[EmbeddingRow], vectors: Matrix) -> None:
    """Append embeddings with their ``halfvec`` copies in one binary COPY (a store without
    them): no vector is written out as text and parsed back."""
    # Imported here: only a bulk load needs the driver's own COPY, and the web app, which
    # imports this module on SQLite too, should not load a driver it never uses.
    import psycopg

    raw = connection.connection.driver_connection
    if not isinstance(raw, psycopg.Connection):
        raise TypeError("a bulk load needs PostgreSQL through psycopg")
    statement = (
        "COPY paper_embeddings (arxiv_id, model, text_hash, dimensions, vector, computed_at, "
        f"{VECTOR_COLUMN}) FROM STDIN (FORMAT BINARY)"
    )
    with raw.cursor() as cursor, cursor.copy(statement) as copy:
        copy.write(copy_stream(rows, vectors))


def copy_stream(rows: Sequence[EmbeddingRow], vectors: Matrix) -> bytes:
    """PostgreSQL's binary COPY format of these rows (header, tuples, trailer); ``vectors``
    are the rows' vectors unpacked, one per row, for their ``halfvec`` copies."""
    tuples = b"".join(_copy_tuple(row, vector) for row, vector in zip(rows, vectors, strict=True))
    return COPY_HEADER + tuples + struct.pack("!h", -1)


def _copy_tuple(row: EmbeddingRow, vector: Matrix) -> bytes:
    micros = (row.computed_at - POSTGRES_EPOCH) // timedelta(microseconds=1)
    fields = (
        row.arxiv_id.encode(),
        row.model.encode(),
        row.text_hash.encode(),
        struct.pack("!i", row.dimensions),
        row.vector,
        struct.pack("!q", micros),
        halfvec_binary(vector),
    )
    return struct.pack("!h", len(fields)) + b"".join(
        struct.pack("!i", len(field)) + field for field in fields
    )


def halfvec_binary(vector: Matrix) -> bytes:
    """pgvector's binary form of a ``halfvec``: its width, a zero, then big-endian halves."""
    values = np.asarray(vector, dtype=">f2")
    return struct.pack("!hh", len(values), 0) + values.tobytes()


def ensure_vector_index(connection: Connection, dimensions: int) -> None:
    """The HNSW index (cosine) over the vectors of one dimension, made if missing.

    Partial and over a cast, since the column has no fixed dimension: a search for a query of
    ``dimensions`` values orders by ``embedding::halfvec(dimensions)`` with ``dimensions = n``
    in its WHERE clause, literally, so the planner sees the index applies.
    """
    size = int(dimensions)
    connection.execute(
        text(
            f"CREATE INDEX IF NOT EXISTS {index_name(size)} ON paper_embeddings USING hnsw "
            f"(({VECTOR_COLUMN}::halfvec({size})) halfvec_cosine_ops) WHERE dimensions = {size}"
        )
    )


def install(connection: Connection) -> bool:
    """Make the word index, and the vector column and index where pgvector can be had.

    Idempotent; returns whether vectors are kept in the database. A no-op off PostgreSQL.
    """
    if connection.dialect.name != "postgresql":
        return False
    install_words(connection)
    if _column_exists(connection):
        return True
    if not _create_extension(connection):
        return False
    connection.execute(text(f"ALTER TABLE paper_embeddings ADD COLUMN {VECTOR_COLUMN} halfvec"))
    _backfill_vectors(connection)
    ensure_vector_index(connection, DEFAULT_DIMENSIONS)
    return True


def _create_extension(connection: Connection) -> bool:
    available = text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
    if connection.execute(available).first() is None:
        return False
    try:
        with connection.begin_nested():
            connection.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    except DBAPIError:
        # Installed on the server but not ours to create (no privilege): as if missing.
        return False
    return True


def _backfill_vectors(connection: Connection) -> None:
    """Copy every stored float32 vector into the ``halfvec`` column, a page at a time."""
    after = ("", "")
    page = text(
        "SELECT arxiv_id, model, vector FROM paper_embeddings WHERE (arxiv_id, model) > (:a, :m) "
        "ORDER BY arxiv_id, model LIMIT :size"
    )
    while rows := connection.execute(
        page, {"a": after[0], "m": after[1], "size": BACKFILL_PAGE}
    ).all():
        by_model: dict[str, list[tuple[str, Matrix]]] = {}
        for arxiv_id, model, blob in rows:
            by_model.setdefault(model, []).append((arxiv_id, unpack(blob)))
        for model, vectors in by_model.items():
            _update(connection, model, vectors)
        after = (rows[-1].arxiv_id, rows[-1].model)


def _update(connection: Connection, model: str, rows: list[tuple[str, Matrix]]) -> None:
    connection.execute(
        text(
            "UPDATE paper_embeddings AS e SET embedding = CAST(v.vector AS halfvec) "
            "FROM unnest(CAST(:ids AS text[]), CAST(:vectors AS text[])) AS v(arxiv_id, vector) "
            "WHERE e.arxiv_id = v.arxiv_id AND e.model = :model"
        ),
        {
            "ids": [arxiv_id for arxiv_id, _ in rows],
            "vectors": [halfvec_text(vector) for _, vector in rows],
            "model": model,
        },
    )


def in_models(name: str | None, kind: str, parents: Mapping[Any, str | None]) -> bool:
    """For Alembic's ``include_name``: False for what only :func:`install` makes."""
    if kind == "table":
        return name not in (SEARCH_TABLE, "paper_search_words")
    if kind == "column":
        return (parents.get("table_name"), name) != ("paper_embeddings", VECTOR_COLUMN)
    if kind == "index":
        return not (name or "").startswith(("ix_paper_embeddings_embedding_", f"ix_{SEARCH_TABLE}"))
    return True
