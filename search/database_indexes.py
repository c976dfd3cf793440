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

VECTOR_COLUMN = "embedding"
SEARCH_TABLE = "paper_search"
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


def search_place(engine: Engine) -> SearchPlace:
    """Where this database's searches are answered (as :mod:`search.searcher` chooses)."""
    if engine.dialect.name != "postgresql":
        return SearchPlace.PROCESS
    return SearchPlace.DATABASE if has_vector_column(engine) else SearchPlace.FALLBACK


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


def has_vector_column(engine: Engine) -> bool:
    """Whether this database keeps ``halfvec`` embeddings (asked once per engine)."""
    if engine.dialect.name != "postgresql":
        return False
    if engine not in _known:
        with engine.connect() as connection:
            _known[engine] = _column_exists(connection)
    return _known[engine]


def complete(engine: Engine) -> str | None:
    """After migrating: add the vectors if pgvector came since; a line to print if still not.

    Migration 0014 made them once (from its own copy of :func:`install`); a server that gains
    the extension later gets the column and index from the next ``paperboy migrate``, which
    calls this.
    """
    if engine.dialect.name != "postgresql":
        return None
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
    _install_words(connection)
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


# The words of one paper, as search weighs them; also what a query is matched against.
DOCUMENT = (
    "setweight(to_tsvector('english', p.title), 'A') || "
    "setweight(to_tsvector('english', p.abstract), 'B') || "
    "setweight(to_tsvector('english', coalesce(("
    "SELECT string_agg(a.name, ' ' ORDER BY a.position) FROM paper_authors AS a "
    "WHERE a.arxiv_id = p.arxiv_id), '')), 'C')"
)

_WORDS_DDL = (
    "CREATE TABLE IF NOT EXISTS paper_search ("
    "arxiv_id varchar(40) PRIMARY KEY REFERENCES papers (arxiv_id) ON DELETE CASCADE, "
    "document tsvector NOT NULL)",
    "CREATE INDEX IF NOT EXISTS ix_paper_search_document ON paper_search USING gin (document)",
    # Recomputes the documents of the given papers (those that still exist).
    f"""CREATE OR REPLACE FUNCTION paper_search_refresh(ids text[]) RETURNS void
    LANGUAGE sql AS $$
        INSERT INTO paper_search (arxiv_id, document)
        SELECT p.arxiv_id, {DOCUMENT} FROM papers AS p WHERE p.arxiv_id = ANY(ids)
        ON CONFLICT (arxiv_id) DO UPDATE SET document = EXCLUDED.document
        WHERE paper_search.document IS DISTINCT FROM EXCLUDED.document
    $$""",  # noqa: S608 (DOCUMENT is a constant)
    # One function for every trigger: the changed rows' papers, from whichever transition
    # table the trigger has (statement-level, so a bulk write refreshes once per statement).
    """CREATE OR REPLACE FUNCTION paper_search_changed() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE added text[];
    BEGIN
        IF TG_OP = 'DELETE' THEN
            PERFORM paper_search_refresh(ARRAY(SELECT DISTINCT arxiv_id FROM old_rows));
        ELSIF TG_TABLE_NAME = 'paper_authors' AND TG_OP = 'INSERT' THEN
            -- A paper stored with its authors: its words so far are title and abstract, so
            -- the authors' are appended (the same tsvector as computing all again, for a
            -- fraction of the work). Papers that had authors already are computed again.
            WITH done AS (
                UPDATE paper_search AS s
                SET document = s.document || setweight(to_tsvector('english', f.names), 'C')
                FROM (SELECT n.arxiv_id, string_agg(n.name, ' ' ORDER BY n.position) AS names
                      FROM new_rows AS n GROUP BY n.arxiv_id
                      HAVING count(*) = (SELECT count(*) FROM paper_authors AS a
                                         WHERE a.arxiv_id = n.arxiv_id)) AS f
                WHERE s.arxiv_id = f.arxiv_id
                RETURNING s.arxiv_id
            )
            SELECT coalesce(array_agg(arxiv_id), '{}') INTO added FROM done;
            PERFORM paper_search_refresh(ARRAY(
                SELECT DISTINCT arxiv_id FROM new_rows WHERE arxiv_id <> ALL(added)));
        ELSIF TG_TABLE_NAME = 'papers' AND TG_OP = 'UPDATE' THEN
            -- Most updates of a paper (its version, dates, withdrawal) leave its words alone.
            PERFORM paper_search_refresh(ARRAY(
                SELECT n.arxiv_id FROM new_rows AS n JOIN old_rows AS o USING (arxiv_id)
                WHERE (n.title, n.abstract) IS DISTINCT FROM (o.title, o.abstract)));
        ELSE
            PERFORM paper_search_refresh(ARRAY(SELECT DISTINCT arxiv_id FROM new_rows));
        END IF;
        RETURN NULL;
    END $$""",
)
# How many papers hold each word (the empty word: how many papers there are), for the words'
# rarity (idf) at query time; kept by statement-level triggers on paper_search itself.
_COUNTS_DDL = (
    "CREATE TABLE IF NOT EXISTS paper_search_words (word text PRIMARY KEY, papers bigint NOT NULL)",
    """CREATE OR REPLACE FUNCTION paper_search_count() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            PERFORM paper_search_add(ARRAY(SELECT document FROM new_rows), 1);
        ELSIF TG_OP = 'DELETE' THEN
            PERFORM paper_search_add(ARRAY(SELECT document FROM old_rows), -1);
        ELSE
            PERFORM paper_search_add(ARRAY(SELECT document FROM old_rows), -1);
            PERFORM paper_search_add(ARRAY(SELECT document FROM new_rows), 1);
        END IF;
        RETURN NULL;
    END $$""",
    # Words in a fixed order: concurrent writers lock the same rows in the same order.
    """CREATE OR REPLACE FUNCTION paper_search_add(documents tsvector[], delta integer)
    RETURNS void LANGUAGE sql AS $$
        INSERT INTO paper_search_words AS c (word, papers)
        SELECT word, count(*) * delta FROM (
            SELECT unnest(tsvector_to_array(d)) AS word FROM unnest(documents) AS d
            UNION ALL SELECT '' FROM unnest(documents)
        ) AS w GROUP BY word ORDER BY word
        ON CONFLICT (word) DO UPDATE SET papers = c.papers + EXCLUDED.papers
    $$""",
)
_COUNT_TRIGGERS = (
    ("paper_search", "INSERT", "NEW TABLE AS new_rows"),
    ("paper_search", "UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
    ("paper_search", "DELETE", "OLD TABLE AS old_rows"),
)
# (table, event, transition tables): PostgreSQL allows one event per trigger with them.
_TRIGGERS = (
    ("papers", "INSERT", "NEW TABLE AS new_rows"),
    ("papers", "UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
    ("paper_authors", "INSERT", "NEW TABLE AS new_rows"),
    ("paper_authors", "UPDATE", "NEW TABLE AS new_rows"),
    ("paper_authors", "DELETE", "OLD TABLE AS old_rows"),
)


def _install_words(connection: Connection) -> None:
    exists = text("SELECT to_regclass(:table) IS NOT NULL")
    existed = connection.execute(exists, {"table": "paper_search"}).scalar_one()
    counted = connection.execute(exists, {"table": "paper_search_words"}).scalar_one()
    for statement in _WORDS_DDL + _COUNTS_DDL:
        connection.execute(text(statement))
    _triggers(connection, _TRIGGERS, "paper_search_changed")
    if not existed:
        connection.execute(text("SELECT paper_search_refresh(ARRAY(SELECT arxiv_id FROM papers))"))
    if not counted:
        connection.execute(
            text(
                "INSERT INTO paper_search_words (word, papers) "
                "SELECT word, ndoc FROM ts_stat('SELECT document FROM paper_search') "
                "UNION ALL SELECT '', count(*) FROM paper_search"
            )
        )
    _triggers(connection, _COUNT_TRIGGERS, "paper_search_count")


def _triggers(
    connection: Connection, triggers: tuple[tuple[str, str, str], ...], function: str
) -> None:
    for table, event, transition in triggers:
        name = f"{SEARCH_TABLE}_{table}_{event.lower()}"
        connection.execute(text(f"DROP TRIGGER IF EXISTS {name} ON {table}"))
        connection.execute(
            text(
                f"CREATE TRIGGER {name} AFTER {event} ON {table} REFERENCING {transition} "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
            )
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
