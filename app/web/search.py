"""Hybrid search over every stored paper: keywords (tf-idf) fused with meaning (embeddings).

The index is built in memory on first use and refreshed when the number of stored papers
changes; the query embedder loads on the first semantic search, never at import (web workers
start without torch). Ranking is pure (:func:`fuse`, :func:`top`), loading is a thin shell.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.models import Paper, PaperAuthor, PaperCategory, PaperEmbedding
from app.core.vectors import Matrix, stack

RRF_K = 60
CANDIDATES = 200
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


def fuse(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    """Reciprocal rank fusion: each list adds 1/(k + rank); ties keep first-seen order."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda key: -scores[key])


def top(scores: NDArray[np.floating[Any]], allowed: NDArray[np.bool_], count: int) -> list[int]:
    """Rows with the highest positive scores among the allowed ones, best first."""
    scored = np.where(allowed & (scores > 0), scores, -np.inf)
    count = min(count, int(np.isfinite(scored).sum()))
    if count == 0:
        return []
    best = np.argpartition(-scored, count - 1)[:count]
    return [int(i) for i in best[np.argsort(-scored[best], kind="stable")]]


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


class SearchService:
    """The process's search index and query embedder, both loaded on first use."""

    def __init__(self, settings: Settings, sessions: sessionmaker[Session]) -> None:
        self._settings = settings
        self._sessions = sessions
        self._lock = threading.Lock()
        self._index: Index | None = None
        self._embedder: Any = None
        self._slots = threading.BoundedSemaphore(CONCURRENT_SEARCHES)

    def search(self, query: str, filters: Filters, limit: int) -> list[str]:
        """Paper ids, best first; :class:`SearchBusyError` when too many searches wait."""
        if not self._slots.acquire(timeout=BUSY_WAIT_SECONDS):
            raise SearchBusyError("too many searches at once; retry in a moment")
        try:
            return self._search(query, filters, limit)
        finally:
            self._slots.release()

    def _search(self, query: str, filters: Filters, limit: int) -> list[str]:
        index = self.index()
        allowed = allowed_rows(index, filters)
        keyword = top(self._keyword_scores(index, query), allowed, CANDIDATES)
        rankings = [[index.ids[i] for i in keyword]]
        if self._settings.search_semantic and index.has_vector.any():
            scores = index.vectors @ self._embed(query)
            semantic = top(scores, allowed & index.has_vector, CANDIDATES)
            rankings.append([index.ids[i] for i in semantic])
        return fuse(rankings)[:limit]

    def similar(self, arxiv_id: str, limit: int) -> list[str]:
        """Papers closest in meaning to a stored paper (itself excluded)."""
        index = self.index()
        row = index.position.get(arxiv_id)
        if row is None or not index.has_vector[row]:
            return []
        allowed = index.has_vector.copy()
        allowed[row] = False
        return [index.ids[i] for i in top(index.vectors @ index.vectors[row], allowed, limit)]

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

    def _keyword_scores(self, index: Index, query: str) -> NDArray[np.float64]:
        if index.terms is None:
            return np.zeros(len(index.ids))
        weights = index.terms.transform([query])
        if weights.nnz == 0:
            return np.zeros(len(index.ids))
        columns = index.keyword_matrix[:, weights.indices]
        return np.asarray(columns @ weights.data).ravel()

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


def build_index(session: Session, model: str) -> Index:
    rows = session.execute(
        select(Paper.arxiv_id, Paper.title, Paper.abstract, Paper.announced_on).order_by(
            Paper.arxiv_id
        )
    ).all()
    ids = [row.arxiv_id for row in rows]
    position = {arxiv_id: i for i, arxiv_id in enumerate(ids)}
    names = _joined(session.execute(select(PaperAuthor.arxiv_id, PaperAuthor.name)), position)
    texts = [f"{row.title} {row.title} {row.abstract} {names[i]}" for i, row in enumerate(rows)]
    terms, matrix = _keyword_index(texts)
    vectors, has_vector = _vectors(session, model, position)
    announced = [NO_DATE if r.announced_on is None else r.announced_on.toordinal() for r in rows]
    return Index(
        ids=ids,
        position=position,
        announced=np.array(announced, dtype=np.int64),
        by_category=_categories(session, position),
        terms=terms,
        keyword_matrix=matrix,
        vectors=vectors,
        has_vector=has_vector,
        paper_count=len(ids),
        built_at=time.monotonic(),
    )


def _joined(rows: Any, position: dict[str, int]) -> list[str]:
    parts: list[list[str]] = [[] for _ in position]
    for arxiv_id, name in rows:
        if arxiv_id in position:
            parts[position[arxiv_id]].append(name)
    return [" ".join(names) for names in parts]


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


def _categories(session: Session, position: dict[str, int]) -> dict[str, NDArray[np.int64]]:
    rows: dict[str, list[int]] = {}
    for arxiv_id, category in session.execute(
        select(PaperCategory.arxiv_id, PaperCategory.category)
    ):
        if arxiv_id in position:
            rows.setdefault(category, []).append(position[arxiv_id])
    return {category: np.array(found, dtype=np.int64) for category, found in rows.items()}
