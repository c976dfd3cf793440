"""Hybrid search over every stored paper: keywords (tf-idf) fused with meaning (embeddings).

The index is built in memory on first use and refreshed when the number of stored papers
changes; the query embedder loads on the first semantic search, never at import (web workers
start without torch). Which papers match and in which order is pure (:mod:`app.web.relevance`);
so is building the index from documents (:func:`make_index`), which the search evaluation
(``benchmarks/search_eval.py``) calls on the whole corpus; reading the database is a thin shell.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.models import Paper, PaperAuthor, PaperCategory, PaperEmbedding
from app.core.vectors import Matrix, stack
from app.web.relevance import (
    FUSION,
    MAX_MATCHES,
    Fusion,
    Match,
    SearchSort,
    Words,
    arrange,
    best_rows,
    relevance,
)

REFRESH_SECONDS = 300.0
NO_DATE = -1
# Searches computed at once per process; more only contend for the CPU. The rest wait, up to
# BUSY_WAIT_SECONDS, without holding a database connection, then get "busy" (503).
CONCURRENT_SEARCHES = 4
BUSY_WAIT_SECONDS = 10.0


class SearchBusyError(RuntimeError):
    """Every search slot stayed taken for BUSY_WAIT_SECONDS."""


@dataclass(frozen=True, slots=True)
class Filters:
    since: date | None = None
    until: date | None = None
    category: str | None = None


@dataclass(frozen=True, slots=True)
class Document:
    """What search reads of a paper."""

    arxiv_id: str
    title: str
    abstract: str
    authors: str
    announced_on: date | None
    categories: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Index:
    ids: list[str]
    position: dict[str, int]
    announced: NDArray[np.int64]
    by_category: dict[str, NDArray[np.int64]]
    terms: Any  # a fitted TfidfVectorizer; None when no paper has a word yet
    keyword_matrix: Any  # papers x terms, CSC
    vectors: Matrix
    has_vector: NDArray[np.bool_]
    paper_count: int
    built_at: float


@dataclass(frozen=True, slots=True)
class Found:
    """A search's matches, best first (at most ``MAX_MATCHES``), with their ids."""

    matches: list[Match]
    ids: dict[int, str]

    def page(self, sort: SearchSort, number: int, size: int) -> list[str]:
        """The ids on page ``number`` (from 1) of ``size`` matches in the order asked."""
        chosen = arrange(self.matches, sort)[(number - 1) * size : number * size]
        return [self.ids[match.row] for match in chosen]


def allowed_rows(index: Index, filters: Filters) -> NDArray[np.bool_]:
    allowed = np.ones(len(index.ids), dtype=bool)
    if filters.since is not None:
        allowed &= index.announced >= filters.since.toordinal()
    if filters.until is not None:
        allowed &= (index.announced <= filters.until.toordinal()) & (index.announced != NO_DATE)
    if filters.category is not None:
        in_category = np.zeros(len(index.ids), dtype=bool)
        in_category[index.by_category.get(filters.category, np.array([], dtype=np.int64))] = True
        allowed &= in_category
    return allowed


def keyword_scores(index: Index, query: str) -> Words:
    """Each paper's tf-idf cosine with the query and its share of the query's words.

    A query word no paper holds counts as missing from every paper, as rare as the rarest
    known word: "bicycle cupboard" is not matched in full by a paper about bicycles.
    """
    nothing = np.zeros(len(index.ids))
    if index.terms is None:
        return Words(nothing, nothing)
    weights = index.terms.transform([query])
    if weights.nnz == 0:
        return Words(nothing, nothing)
    columns = index.keyword_matrix[:, weights.indices]
    rarity = index.terms.idf_[weights.indices]
    asked = set(index.terms.build_analyzer()(query))
    unknown = len(asked) - len(weights.indices)
    whole = rarity.sum() + unknown * index.terms.idf_.max()
    held = (columns > 0).astype(np.float64) @ (rarity / whole)
    return Words(np.asarray(columns @ weights.data).ravel(), np.asarray(held).ravel())


def matches(
    index: Index,
    words: Words,
    meaning: Matrix | None,
    filters: Filters,
    fusion: Fusion = FUSION,
) -> list[Match]:
    """The papers that match, best first; ``meaning`` is None when search has no model."""
    scores = relevance(words, meaning, index.has_vector, fusion)
    rows = best_rows(scores, allowed_rows(index, filters), MAX_MATCHES)
    return [Match(row, float(scores[row]), int(index.announced[row])) for row in rows]


class SearchService:
    """The process's search index and query embedder, both loaded on first use."""

    def __init__(self, settings: Settings, sessions: sessionmaker[Session]) -> None:
        self._settings = settings
        self._sessions = sessions
        self._lock = threading.Lock()
        self._index: Index | None = None
        self._embedder: Any = None
        self._slots = threading.BoundedSemaphore(CONCURRENT_SEARCHES)

    def search(self, query: str, filters: Filters) -> Found:
        """Every match, best first; :class:`SearchBusyError` when too many searches wait."""
        if not self._slots.acquire(timeout=BUSY_WAIT_SECONDS):
            raise SearchBusyError("too many searches at once; retry in a moment")
        try:
            return self._search(query, filters)
        finally:
            self._slots.release()

    def _search(self, query: str, filters: Filters) -> Found:
        index = self.index()
        meaning = None
        if self._settings.search_semantic and index.has_vector.any():
            meaning = index.vectors @ self._embed(query)
        found = matches(index, keyword_scores(index, query), meaning, filters)
        return Found(found, {match.row: index.ids[match.row] for match in found})

    def similar(self, arxiv_id: str, limit: int) -> list[str]:
        """Papers closest in meaning to a stored paper (itself excluded)."""
        index = self.index()
        row = index.position.get(arxiv_id)
        if row is None or not index.has_vector[row]:
            return []
        allowed = index.has_vector.copy()
        allowed[row] = False
        closest = index.vectors @ index.vectors[row]
        return [index.ids[i] for i in best_rows(closest, allowed & (closest > 0), limit)]

    def warm(self) -> None:
        """Nothing yet: the index and the query model load on first use."""

    def index(self) -> Index:
        with self._lock:
            if self._index is None or self._changed(self._index):
                with self._sessions() as session:
                    self._index = build_index(session, self._settings.embedding_model)
            return self._index

    def _changed(self, index: Index) -> bool:
        """Whether papers were added since the build (asked at most every REFRESH_SECONDS)."""
        if time.monotonic() - index.built_at < REFRESH_SECONDS:
            return False
        with self._sessions() as session:
            changed = _paper_count(session) != index.paper_count
        self._index = replace(index, built_at=time.monotonic())
        return changed

    def _embed(self, query: str) -> Matrix:
        with self._lock:
            if self._embedder is None:
                self._embedder = _query_embedder(self._settings)
            vector: Matrix = self._embedder.encode([query])[0]
            return vector


def _query_embedder(settings: Settings) -> Any:
    """The embedder for queries, on ``search_threads`` CPU threads (torch and onnxruntime).

    One short query per request gains nothing from more threads, and on a busy machine they
    contend: measured on two shared cores, 40 ms a query on one torch thread, 290 ms on two.
    """
    import torch  # only here: web workers start without it

    from ranking.embedder import make_embedder

    torch.set_num_threads(settings.search_threads)
    return make_embedder(settings)


def _paper_count(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(Paper)) or 0


def make_index(
    documents: Sequence[Document], vectors: Matrix, has_vector: NDArray[np.bool_]
) -> Index:
    """The index of these papers; row i of ``vectors`` is the i-th document's (if it has one)."""
    ids = [document.arxiv_id for document in documents]
    # The title twice: its words say more about the paper than the abstract's.
    texts = [f"{d.title} {d.title} {d.abstract} {d.authors}" for d in documents]
    terms, matrix = _keyword_index(texts)
    rows: dict[str, list[int]] = {}
    for row, document in enumerate(documents):
        for category in document.categories:
            rows.setdefault(category, []).append(row)
    announced = [
        NO_DATE if d.announced_on is None else d.announced_on.toordinal() for d in documents
    ]
    return Index(
        ids=ids,
        position={arxiv_id: row for row, arxiv_id in enumerate(ids)},
        announced=np.array(announced, dtype=np.int64),
        by_category={category: np.array(found, dtype=np.int64) for category, found in rows.items()},
        terms=terms,
        keyword_matrix=matrix,
        vectors=vectors,
        has_vector=has_vector,
        paper_count=len(ids),
        built_at=time.monotonic(),
    )


def build_index(session: Session, model: str) -> Index:
    rows = session.execute(
        select(Paper.arxiv_id, Paper.title, Paper.abstract, Paper.announced_on).order_by(
            Paper.arxiv_id
        )
    ).all()
    position = {row.arxiv_id: i for i, row in enumerate(rows)}
    names = _joined(session.execute(select(PaperAuthor.arxiv_id, PaperAuthor.name)), position)
    categories = _joined(
        session.execute(select(PaperCategory.arxiv_id, PaperCategory.category)), position
    )
    documents = [
        Document(r.arxiv_id, r.title, r.abstract, " ".join(names[i]), r.announced_on,
                 tuple(categories[i]))
        for i, r in enumerate(rows)
    ]  # fmt: skip
    vectors, has_vector = _vectors(session, model, position)
    return make_index(documents, vectors, has_vector)


def _joined(rows: Any, position: dict[str, int]) -> list[list[str]]:
    parts: list[list[str]] = [[] for _ in position]
    for arxiv_id, value in rows:
        if arxiv_id in position:
            parts[position[arxiv_id]].append(value)
    return parts


def _keyword_index(texts: list[str]) -> tuple[Any, Any]:
    from sklearn.feature_extraction.text import TfidfVectorizer  # heavy; only when searching

    terms = TfidfVectorizer(
        stop_words="english", sublinear_tf=True, dtype=np.float32, min_df=1, strip_accents="unicode"
    )
    try:
        matrix = terms.fit_transform(texts or [""]).tocsc()
    except ValueError:
        # No word at all: a new deployment with no papers yet. Nothing matches any query.
        return None, None
    return terms, matrix


def _vectors(
    session: Session, model: str, position: dict[str, int]
) -> tuple[Matrix, NDArray[np.bool_]]:
    rows = session.execute(
        select(PaperEmbedding.arxiv_id, PaperEmbedding.dimensions, PaperEmbedding.vector).where(
            PaperEmbedding.model == model
        )
    ).all()
    has_vector = np.zeros(len(position), dtype=bool)
    if not rows:
        return np.zeros((len(position), 1), dtype=np.float32), has_vector
    found = stack([row.vector for row in rows], rows[0].dimensions)
    vectors = np.zeros((len(position), rows[0].dimensions), dtype=np.float32)
    for row, vector in zip(rows, found, strict=True):
        if row.arxiv_id in position:
            vectors[position[row.arxiv_id]] = vector
            has_vector[position[row.arxiv_id]] = True
    return vectors, has_vector
