"""Stored embeddings: compute what is missing or stale, import a precomputed matrix, load.

A vector is kept per (paper, model) with the hash of the text it was computed from; it is
recomputed only when that text changes. Work goes page by page through the papers, so memory
is bounded by the page and the batch, never by the corpus; each page is handed to a
checkpoint once stored (the caller commits there), so a run that is killed keeps every page
before the one in hand, and running it again embeds only what is left.

The text a paper is embedded from (:func:`embedding_text`) is fixed: ``title + ". " +
abstract``, each with runs of whitespace collapsed to one space and trimmed. The precomputed
corpus matrix uses the same rule, so hashes agree.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime

import numpy as np
from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from app.core.models import Paper, PaperEmbedding
from app.core.vectors import BadVectorsError, Matrix, normalise, pack, stack
from ranking.embedder import Embedder
from search.database_indexes import (
    EmbeddingRow,
    build_vector_index,
    copy_embeddings,
    drop_vector_index,
    has_vector_column,
    holds_vectors,
    store_vectors,
)

PAGE_SIZE = 1_000
Progress = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class PendingText:
    arxiv_id: str
    text: str
    hash: str


@dataclass(frozen=True, slots=True)
class EmbedSummary:
    papers: int
    embedded: int

    def line(self) -> str:
        fresh = self.papers - self.embedded
        return f"papers {self.papers}, embedded {self.embedded}, up to date {fresh}"


def embed_papers(
    session: Session,
    embedder: Embedder,
    *,
    day: date | None = None,
    progress: Progress = lambda _: None,
    checkpoint: Callable[[], None] = lambda: None,
    page_size: int = PAGE_SIZE,
) -> EmbedSummary:
    """Embed each paper (of ``day``, or all) whose vector is missing or from other text,
    ``page_size`` papers at a time, calling ``checkpoint`` after each page is stored."""
    papers = embedded = 0
    for page in _paper_pages(session, day, page_size):
        pending = _stale(session, page, embedder.model)
        if pending:
            vectors = embedder.encode([item.text for item in pending])
            _store(
                session, embedder.model, [(item.arxiv_id, item.hash) for item in pending], vectors
            )
            checkpoint()
        papers, embedded = papers + len(page), embedded + len(pending)
        progress(len(page))
    return EmbedSummary(papers, embedded)


def count_papers(session: Session, day: date | None) -> int:
    query = select(func.count()).select_from(Paper)
    if day is not None:
        query = query.where(Paper.announced_on == day)
    return int(session.scalar(query) or 0)


def _paper_pages(session: Session, day: date | None, size: int) -> Iterator[list[PendingText]]:
    after = ""
    while True:
        query = select(Paper.arxiv_id, Paper.title, Paper.abstract).where(Paper.arxiv_id > after)
        if day is not None:
            query = query.where(Paper.announced_on == day)
        rows = session.execute(query.order_by(Paper.arxiv_id).limit(size)).all()
        if not rows:
            return
        texts = [(row.arxiv_id, embedding_text(row.title, row.abstract)) for row in rows]
        yield [PendingText(arxiv_id, text, text_hash(text)) for arxiv_id, text in texts]
        after = rows[-1].arxiv_id


def _stale(session: Session, page: list[PendingText], model: str) -> list[PendingText]:
    stored = _stored_hashes(session, [item.arxiv_id for item in page], model)
    return [item for item in page if stored.get(item.arxiv_id) != item.hash]


def _stored_hashes(session: Session, arxiv_ids: Sequence[str], model: str) -> dict[str, str]:
    query = select(PaperEmbedding.arxiv_id, PaperEmbedding.text_hash).where(
        PaperEmbedding.model == model, PaperEmbedding.arxiv_id.in_(arxiv_ids)
    )
    return {row.arxiv_id: row.text_hash for row in session.execute(query)}


def _store(
    session: Session,
    model: str,
    keys: list[tuple[str, str]],
    vectors: Matrix,
    *,
    bulk: bool = False,
) -> None:
    """Replace these papers' vectors; ``bulk``: append to a store that holds none of them."""
    now = datetime.now(UTC)
    rows = [
        EmbeddingRow(
            arxiv_id=arxiv_id,
            model=model,
            text_hash=hash_,
            dimensions=int(vector.shape[0]),
            vector=pack(vector),
            computed_at=now,
        )
        for (arxiv_id, hash_), vector in zip(keys, vectors, strict=True)
    ]
    connection = session.connection()
    if bulk:
        copy_embeddings(connection, rows, vectors)
        return
    ids = [arxiv_id for arxiv_id, _ in keys]
    session.execute(
        delete(PaperEmbedding).where(
            PaperEmbedding.model == model, PaperEmbedding.arxiv_id.in_(ids)
        )
    )
    session.execute(insert(PaperEmbedding), [row._asdict() for row in rows])
    if has_vector_column(connection.engine):
        store_vectors(connection, model, list(zip(ids, vectors, strict=True)))


@dataclass(frozen=True, slots=True)
class MatrixImportSummary:
    stored: int
    unchanged: int
    unknown: int
    # Copied into an empty PostgreSQL store: how long building its vector index then took.
    index_seconds: float | None = None

    @property
    def bulk(self) -> bool:
        return self.index_seconds is not None

    def line(self) -> str:
        counts = (
            f"stored {self.stored}, unchanged {self.unchanged}, unknown ids skipped {self.unknown}"
        )
        if self.index_seconds is None:
            return counts
        return f"{counts}; loaded in bulk, vector index built once in {self.index_seconds:.0f} s"


def check_matrix(matrix: np.ndarray, ids: object) -> tuple[Matrix, list[str]]:
    """The matrix normalised and the ids validated; raises BadVectorsError on any mismatch."""
    if not isinstance(ids, list) or not all(isinstance(item, str) for item in ids):
        raise BadVectorsError("the ids file must hold a JSON list of arXiv id strings")
    if len(set(ids)) != len(ids):
        raise BadVectorsError("the ids file lists an id more than once")
    vectors = normalise(matrix)
    if vectors.shape[0] != len(ids):
        raise BadVectorsError(
            f"the matrix has {vectors.shape[0]} rows but there are {len(ids)} ids"
        )
    return vectors, ids


def import_matrix(
    session: Session,
    vectors: Matrix,
    ids: list[str],
    model: str,
    progress: Progress = lambda _: None,
) -> MatrixImportSummary:
    """Store precomputed vectors for known papers, hashed with each paper's current text.

    Into a PostgreSQL store holding no vector of this width, the rows are copied in bulk and
    the HNSW index is built once at the end: indexing each row as it comes costs far more.
    The whole import is one transaction, the dropped index included.
    """
    connection = session.connection()
    width = int(vectors.shape[1])
    bulk = has_vector_column(connection.engine) and not holds_vectors(connection, width)
    if bulk:
        drop_vector_index(connection, width)
    stored = unchanged = unknown = 0
    for start in range(0, len(ids), PAGE_SIZE):
        page = ids[start : start + PAGE_SIZE]
        taken, known = _import_page(session, page, vectors[start : start + PAGE_SIZE], model, bulk)
        stored, unchanged, unknown = (
            stored + taken,
            unchanged + known - taken,
            unknown + len(page) - known,
        )
        progress(len(page))
    index_seconds = None
    if bulk:
        started = time.perf_counter()
        build_vector_index(connection, width)
        index_seconds = time.perf_counter() - started
    return MatrixImportSummary(
        stored=stored, unchanged=unchanged, unknown=unknown, index_seconds=index_seconds
    )


def _import_page(
    session: Session, page: list[str], vectors: Matrix, model: str, bulk: bool
) -> tuple[int, int]:
    """Store the page's vectors whose paper is known and whose text changed; returns how many
    were stored and how many of the page's papers are known."""
    current = _current_hashes(session, page)
    kept = {} if bulk else _stored_hashes(session, list(current), model)
    take = [
        i
        for i, arxiv_id in enumerate(page)
        if arxiv_id in current and kept.get(arxiv_id) != current[arxiv_id]
    ]
    if take:
        keys = [(page[i], current[page[i]]) for i in take]
        _store(session, model, keys, vectors[take], bulk=bulk)
    return len(take), len(current)


def _current_hashes(session: Session, arxiv_ids: Sequence[str]) -> dict[str, str]:
    query = select(Paper.arxiv_id, Paper.title, Paper.abstract).where(Paper.arxiv_id.in_(arxiv_ids))
    return {
        row.arxiv_id: text_hash(embedding_text(row.title, row.abstract))
        for row in session.execute(query)
    }


def load_vectors(session: Session, arxiv_ids: Sequence[str], model: str) -> dict[str, Matrix]:
    """The stored vectors of these papers under ``model`` (papers without one are absent)."""
    found: dict[str, Matrix] = {}
    for start in range(0, len(arxiv_ids), PAGE_SIZE):
        page = arxiv_ids[start : start + PAGE_SIZE]
        query = select(
            PaperEmbedding.arxiv_id, PaperEmbedding.dimensions, PaperEmbedding.vector
        ).where(PaperEmbedding.model == model, PaperEmbedding.arxiv_id.in_(page))
        rows = session.execute(query).all()
        if rows:
            matrix = stack([row.vector for row in rows], rows[0].dimensions)
            found.update({row.arxiv_id: matrix[i] for i, row in enumerate(rows)})
    return found


def collapse_whitespace(text: str) -> str:
    return " ".join(text.split())


def embedding_text(title: str, abstract: str) -> str:
    return f"{collapse_whitespace(title)}. {collapse_whitespace(abstract)}"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
