"""What the web asks of search, whichever store answers it.

Two implementations: :class:`search.in_process.SearchService` holds the index in the process
(SQLite, and PostgreSQL without pgvector), :mod:`search.in_database` asks PostgreSQL itself
(pgvector and full-text indexes). :func:`make_searcher` picks one for a deployment; its
caller hands in the query model (:data:`search.query.QueryModel`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.vectors import Matrix
from search.database_indexes import has_vector_column
from search.in_database import DatabaseSearch
from search.in_process import SearchService
from search.query import Filters, Found, QueryModel


class Searcher(Protocol):
    def search(self, query: str, filters: Filters) -> Found:
        """Every match, best first (its caller waits its turn: :mod:`app.web.search_turns`)."""
        ...

    def similar(self, arxiv_id: str, limit: int) -> list[str]:
        """Papers closest in meaning to a stored paper (itself excluded)."""
        ...

    def warm(self) -> None:
        """Load what the first search would (query model, index files) ahead of it."""
        ...

    def embed(self, texts: Sequence[str]) -> Matrix:
        """``texts`` as the query model reads them (a reader's interests, as they are saved)."""
        ...


def make_searcher(
    settings: Settings,
    sessions: sessionmaker[Session],
    query_model: QueryModel,
    reading: Callable[[], Session] | None = None,
) -> ChosenOnFirstUse:
    """The deployment's searcher, chosen at its first use (see :class:`ChosenOnFirstUse`);
    ``reading`` opens the sessions PostgreSQL's searches read with (default: ``sessions``)."""
    return ChosenOnFirstUse(
        settings=settings, sessions=sessions, query_model=query_model, reading=reading or sessions
    )


class ChosenOnFirstUse:
    """PostgreSQL's own indexes where it keeps vectors (pgvector), else the in-process index.

    Which one needs a look at the database, so it waits for the first search, not the app's
    construction: a web process starts (and says "not ready") while its database is down.
    """

    def __init__(
        self,
        settings: Settings,
        sessions: sessionmaker[Session],
        query_model: QueryModel,
        reading: Callable[[], Session],
    ) -> None:
        self._settings = settings
        self._sessions = sessions
        self._reading = reading
        self._query_model = query_model
        self._lock = threading.Lock()
        self._chosen: Searcher | None = None

    def search(self, query: str, filters: Filters) -> Found:
        return self.chosen().search(query, filters)

    def similar(self, arxiv_id: str, limit: int) -> list[str]:
        return self.chosen().similar(arxiv_id, limit)

    def warm(self) -> None:
        self.chosen().warm()

    def embed(self, texts: Sequence[str]) -> Matrix:
        return self.chosen().embed(texts)

    def chosen(self) -> Searcher:
        with self._lock:
            if self._chosen is None:
                self._chosen = _choose(
                    self._settings, self._sessions, self._query_model, self._reading
                )
            return self._chosen


def _choose(
    settings: Settings,
    sessions: sessionmaker[Session],
    query_model: QueryModel,
    reading: Callable[[], Session],
) -> Searcher:
    engine = sessions.kw.get("bind")
    if isinstance(engine, Engine) and has_vector_column(engine):
        return DatabaseSearch(settings, reading, query_model)
    return SearchService(settings, sessions, query_model)
