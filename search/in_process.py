"""Hybrid search over every stored paper: keywords (tf-idf) fused with meaning (embeddings).

The index (:mod:`search.index`) is opened from its files under ``DATA_DIR``
(:mod:`search.index_files`, kept current by the embed step) when they are those of the
store; otherwise this process builds it, as before, and saves it for the next one. Every
REFRESH_SECONDS a process checks the store and the files again. The query model (handed in,
:data:`search.query.QueryModel`) loads in :meth:`SearchService.warm` (the web app's start,
when search is semantic) or on the first semantic search, never at import (web workers start
without torch). Which papers match and in which order is pure (:mod:`search.query`);
reading the database is a thin shell.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.vectors import Matrix
from search.index import (
    NO_DATE,
    Index,
    StoreState,
    build_index,
    closeness,
    store_state,
)
from search.index_files import (
    IndexFilesError,
    build_lock,
    current_generation,
    index_directory,
    open_current,
)
from search.index_writer import write_search_index
from search.query import (
    FUSION,
    MAX_MATCHES,
    Filters,
    Found,
    Fusion,
    Match,
    QueryEncoder,
    QueryModel,
    Words,
    best_rows,
    every_word_held,
    relevance,
    typed_words,
)
from search.query_model import WordsOnly, embedded_or_none

logger = logging.getLogger(__name__)
REFRESH_SECONDS = 300.0


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
    # In float64 whichever dtype the vectorizer keeps its idf in (a built index and a saved
    # one differ): the share ranks papers, so both must compute the same number.
    idf = np.asarray(index.terms.idf_, dtype=np.float64)
    rarity = idf[weights.indices]
    asked = set(index.terms.build_analyzer()(query))
    unknown = len(asked) - len(weights.indices)
    whole = rarity.sum() + unknown * idf.max()
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
    allowed = allowed_rows(index, filters)
    every = every_word_held(words, allowed)
    scores = relevance(words, meaning, index.has_vector, fusion, every_word_held=every)
    rows = best_rows(scores, allowed, MAX_MATCHES)
    return [Match(row, float(scores[row]), int(index.announced[row])) for row in rows]


class SearchService:
    """The process's search index and query embedder, both loaded on first use or by warm()."""

    def __init__(
        self,
        settings: Settings,
        sessions: sessionmaker[Session],
        query_model: QueryModel,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._settings = settings
        self._sessions = sessions
        self._query_model = query_model
        self._directory = index_directory(settings.data_dir)
        self._clock = clock  # seconds, for REFRESH_SECONDS (tests move it on)
        self._lock = threading.Lock()
        self._model_lock = threading.Lock()
        self._index: Index | None = None
        self._checked_at = 0.0
        self._embedder: QueryEncoder | None = None
        self._words_only = WordsOnly()

    def search(self, query: str, filters: Filters) -> Found:
        """Every match, best first (its caller waits its turn: :mod:`app.web.search_turns`)."""
        index = self.index()
        meaning = None
        if self._settings.search_semantic and index.has_vector.any():
            vector = self._embed(query)
            meaning = None if vector is None else closeness(index.vectors, vector)
        words = keyword_scores(index, query)
        found = matches(index, words, meaning, filters)
        every = every_word_held(words, allowed_rows(index, filters))
        return Found(
            found,
            {match.row: index.ids[match.row] for match in found},
            () if every or not found else typed_words(query),
        )

    def similar(self, arxiv_id: str, limit: int) -> list[str]:
        """Papers closest in meaning to a stored paper (itself excluded)."""
        index = self.index()
        row = index.position.get(arxiv_id)
        if row is None or not index.has_vector[row]:
            return []
        allowed = np.array(index.has_vector, dtype=bool)
        allowed[row] = False
        closest = closeness(index.vectors, index.vectors[row])
        return [index.ids[i] for i in best_rows(closest, allowed & (closest > 0), limit)]

    def warm(self) -> None:
        """One search now: the index opens, the query model loads, the vectors' pages are
        mapped (the first product over them is many times slower than the next) and the code paths
        warm, so that the first reader's search waits for none of it."""
        self.search("warm", Filters())

    def index(self) -> Index:
        loaded = self._index
        if loaded is None:
            with self._lock:
                if self._index is None:
                    self._index = self._load(self._store_state())
                    self._checked_at = self._clock()
                return self._index
        if self._clock() - self._checked_at < REFRESH_SECONDS:
            return loaded
        # While another thread checks the store, serve what is loaded rather than wait: a
        # waiting request may hold the database connection the check needs.
        if not self._lock.acquire(blocking=False):
            return loaded
        try:
            current = self._index or loaded  # set once loaded, never unset
            if self._clock() - self._checked_at >= REFRESH_SECONDS:  # not just checked
                current = self._refreshed(current)
                self._index, self._checked_at = current, self._clock()
            return current
        finally:
            self._lock.release()

    def _refreshed(self, index: Index) -> Index:
        """The same index while the store and the files are unchanged, else the newer one."""
        state = self._store_state()
        same_files = index.generation in (None, current_generation(self._directory))
        if index.state == state and same_files:
            return index
        return self._load(state)

    def _load(self, state: StoreState) -> Index:
        """The saved index when it is the store's; else one built now, and saved."""
        saved = self._open_saved()
        if saved is not None and saved.state == state:
            return saved
        try:
            with build_lock(self._directory):
                # Another process may have saved it while this one waited for the lock.
                saved = self._open_saved()
                if saved is not None and saved.state == self._store_state():
                    return saved
                return self._build_and_save()
        except OSError as error:
            logger.error(
                "search index: no lock in %s (%s); built in memory", self._directory, error
            )
            return self._build()

    def _build_and_save(self) -> Index:
        # Written from the store in bounded memory, then mapped: one copy shared by processes.
        try:
            with self._sessions() as session:
                write_search_index(session, self._directory, self._settings.embedding_model)
        except OSError as error:
            logger.error("search index not saved in %s (%s)", self._directory, error)
            return self._build()
        return self._open_saved() or self._build()

    def _build(self) -> Index:
        with self._sessions() as session:
            return build_index(session, self._settings.embedding_model)

    def _open_saved(self) -> Index | None:
        try:
            return open_current(self._directory, self._settings.embedding_model)
        except IndexFilesError as error:
            logger.error("search index unreadable, building it again: %s", error)
            return None

    def _store_state(self) -> StoreState:
        with self._sessions() as session:
            return store_state(session, self._settings.embedding_model)

    def _embed(self, query: str) -> Matrix | None:
        return embedded_or_none(self.embed, query, self._words_only)

    def embed(self, texts: Sequence[str]) -> Matrix:
        """``texts`` as the query model reads them, one row each (it loads on first use)."""
        with self._model_lock:  # not the index's: a query waits for no store check
            if self._embedder is None:
                self._embedder = self._query_model(self._settings)
            return np.asarray(self._embedder.encode(list(texts)), dtype=np.float32)
