"""Load synthetic papers (``synthetic_corpus``) into a migrated store fast, then build its indexes.

The raw load and each index build are timed apart (:class:`Timings`). PostgreSQL: ``COPY``
(``ingest.bulk.rows.insert_columns``) with the secondary indexes, the link tables' foreign
keys, the word index's triggers, the GIN index and the HNSW index left out during the load;
afterwards the word documents are computed in one statement (the migration's own
``paper_search_refresh``), then the GIN index and the words' counts, then the HNSW index are
made (``search.database_indexes``).
SQLite: ``executemany`` in one transaction per chunk on the bulk-load connection
(``ingest.bulk.importer``), then the persisted search index is written under DATA_DIR
(``search.index_files.write_search_index``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from app.core.db import make_session_factory, session_scope
from app.core.models import Author, Paper, PaperAuthor, PaperCategory, PaperEmbedding
from app.core.names import author_key
from app.core.vectors import Matrix
from benchmarks.synthetic_corpus import Batch
from ingest.bulk.deferred import constraints_restored_at_end
from ingest.bulk.importer import bulk_load_sessions
from ingest.bulk.rows import insert_columns
from ranking.embeddings import embedding_text, text_hash
from search.database_indexes import DEFAULT_DIMENSIONS, ensure_vector_index, index_name, install
from search.index_files import index_directory
from search.index_writer import write_search_index

WORD_TRIGGER_TABLES = ("papers", "paper_authors")
GIN_INDEX = "ix_paper_search_document"


@dataclass
class Timings:
    """Seconds of each step, in order."""

    steps: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        yield
        self.steps[name] = time.perf_counter() - started
        print(f"  {name}: {self.steps[name]:.1f} s", flush=True)


def load_postgresql(engine: Engine, batches: Iterable[Batch], model: str) -> Timings:
    """Load into a migrated, empty PostgreSQL database with pgvector; build its indexes."""
    timings = Timings()
    sessions = make_session_factory(engine)
    with session_scope(sessions) as session:
        _leave_out_search_indexes(session)
    with timings.step("raw load (COPY)"):
        with constraints_restored_at_end(sessions, True):
            _load(sessions, batches, model, halfvec=True)
            loaded = time.perf_counter()
        btrees = time.perf_counter() - loaded
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE"))
    timings.steps["of which secondary b-trees and foreign keys"] = btrees
    with timings.step("words: tsvector of every paper"), session_scope(sessions) as session:
        session.execute(text("SELECT paper_search_refresh(ARRAY(SELECT arxiv_id FROM papers))"))
    with timings.step("words: GIN index and word counts"), session_scope(sessions) as session:
        install(session.connection())  # the GIN index, the words' counts, the triggers again
        session.execute(text("ANALYZE paper_search"))
    with timings.step("meaning: HNSW index"), session_scope(sessions) as session:
        ensure_vector_index(session.connection(), DEFAULT_DIMENSIONS)
    return timings


def _leave_out_search_indexes(session: Session) -> None:
    session.execute(text(f"DROP INDEX IF EXISTS {index_name(DEFAULT_DIMENSIONS)}"))
    session.execute(text(f"DROP INDEX IF EXISTS {GIN_INDEX}"))
    for table in WORD_TRIGGER_TABLES:  # install() makes them again after the load
        session.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER USER"))


def load_sqlite(engine: Engine, data_dir: Path, batches: Iterable[Batch], model: str) -> Timings:
    """Load into a migrated, empty SQLite database; write the persisted search index."""
    timings = Timings()
    sessions = make_session_factory(engine)
    with (
        timings.step("raw load (executemany)"),
        bulk_load_sessions(sessions, first_load=True) as loading,
        constraints_restored_at_end(loading, True),
    ):
        _load(loading, batches, model, halfvec=False)
    with timings.step("persisted search index"), session_scope(sessions) as session:
        write_search_index(session, index_directory(data_dir), model)
    return timings


def _load(
    sessions: sessionmaker[Session], batches: Iterable[Batch], model: str, *, halfvec: bool
) -> None:
    names: dict[str, str] = {}
    count = 0
    for batch in batches:
        with session_scope(sessions) as session:
            new_authors = _new_authors(batch, names)
            if new_authors:
                insert_columns(session, Author.__table__, new_authors)  # type: ignore[arg-type]
            _insert_batch(session, batch, model, halfvec)
        count += batch.size
        if count % 100_000 < batch.size:
            print(f"    {count:,} papers loaded", flush=True)


def _new_authors(batch: Batch, names: dict[str, str]) -> dict[str, list[str]]:
    """Authors not stored yet (first spelling of a key wins), as columns."""
    added: dict[str, str] = {}
    for authors in batch.authors:
        for name in authors:
            key = author_key(name)
            if key and key not in names and key not in added:
                added[key] = name
    names.update(added)
    return {"key": list(added), "name": list(added.values())} if added else {}


def _insert_batch(session: Session, batch: Batch, model: str, halfvec: bool) -> None:
    hashes = [
        text_hash(embedding_text(title, abstract))
        for title, abstract in zip(batch.titles, batch.abstracts, strict=True)
    ]
    insert = _inserter(session)
    insert(
        Paper,
        {
            "arxiv_id": batch.arxiv_ids,
            "title": batch.titles,
            "abstract": batch.abstracts,
            "comment": batch.comments,
            "announced_on": batch.announced,
            "content_hash": hashes,
        },
    )
    insert(PaperAuthor, _author_links(batch))
    insert(PaperCategory, _category_links(batch))
    now = datetime.now(UTC)
    vectors = np.ascontiguousarray(batch.vectors, dtype="<f4")
    embeddings: dict[str, Sequence[object]] = {
        "arxiv_id": list(batch.arxiv_ids),
        "model": [model] * batch.size,
        "text_hash": list(hashes),
        "dimensions": [vectors.shape[1]] * batch.size,
        "vector": [row.tobytes() for row in vectors],
        "computed_at": [now] * batch.size,
    }
    if halfvec:
        embeddings["embedding"] = halfvec_texts(vectors)
    insert(PaperEmbedding, embeddings)


def _inserter(session: Session) -> Callable[[type, Mapping[str, Sequence[object]]], None]:
    def insert(model: type, columns: Mapping[str, Sequence[object]]) -> None:
        table = model.__table__  # type: ignore[attr-defined]
        if "embedding" in columns and "embedding" not in table.c:
            _copy_with_halfvec(session, columns)
            return
        insert_columns(session, table, columns)

    return insert


def _copy_with_halfvec(session: Session, columns: Mapping[str, Sequence[object]]) -> None:
    """COPY paper_embeddings with the ``embedding`` column the ORM model does not know."""
    driver = session.connection().connection.driver_connection
    assert driver is not None
    names = ", ".join(columns)  # this module's own column names
    with (
        driver.cursor() as cursor,
        cursor.copy(f"COPY paper_embeddings ({names}) FROM STDIN") as copy,
    ):
        for row in zip(*columns.values(), strict=True):
            copy.write_row(row)


def _author_links(batch: Batch) -> dict[str, list[object]]:
    links: dict[str, list[object]] = {"arxiv_id": [], "position": [], "author_key": [], "name": []}
    for arxiv_id, authors in zip(batch.arxiv_ids, batch.authors, strict=True):
        seen: set[str] = set()
        for position, name in enumerate(authors):
            key = author_key(name)
            if key and key not in seen:  # (a paper naming one author twice links it once)
                seen.add(key)
                for column, value in zip(links, (arxiv_id, position, key, name), strict=True):
                    links[column].append(value)
    return links


def _category_links(batch: Batch) -> dict[str, list[object]]:
    links: dict[str, list[object]] = {"arxiv_id": [], "category": [], "position": []}
    for arxiv_id, categories in zip(batch.arxiv_ids, batch.categories, strict=True):
        for position, category in enumerate(dict.fromkeys(categories)):
            for column, value in zip(links, (arxiv_id, category, position), strict=True):
                links[column].append(value)
    return links


# Every float16 value's shortest text that reads back as the same float16: a vector's text
# form is then a lookup and a join (1M vectors in seconds, not minutes of float formatting).
_HALF_TEXT = np.array(
    [repr(float(v)) for v in np.arange(65536, dtype=np.uint16).view(np.float16)], dtype=object
)


def halfvec_texts(vectors: Matrix) -> list[str]:
    """pgvector's text form (``[0.1,0.2]``) of each row, rounded to float16 as halfvec is."""
    halves = np.asarray(vectors, dtype=np.float16).view(np.uint16)
    return ["[" + ",".join(_HALF_TEXT[row]) + "]" for row in halves]
