"""PostgreSQL's word index built once after a first import, instead of row by row.

The word index (:mod:`search.word_index`) is kept by statement triggers: each stored chunk of
an import has its documents computed, its words counted and the GIN index updated, which made a
first import many times slower than its rows. A first import into PostgreSQL instead sets the
triggers off and drops the GIN index (:meth:`WordIndexAfterLoad.defer`); once the rows are in,
the missing documents are computed a span of papers at a time, in parallel, each span committed
(:meth:`WordIndexAfterLoad.finish`), then the words are counted, the GIN index built and the
triggers set on again, in one transaction. Disabled triggers are the mark of work left: an
import killed on the way is finished by the next one, and ``paperboy migrate`` finishes it too.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import Connection, text
from sqlalchemy.orm import Session, sessionmaker

from app.core.db import session_scope
from search.word_index import (
    COUNT_WORDS,
    GIN_INDEX,
    SEARCH_TABLE,
    disabled_triggers,
    trigger_names,
)

# Papers whose documents one statement computes and commits.
SPAN_PAPERS = 5_000
# Statements computing documents at once, unless told: to_tsvector is the cost, one database
# server core each (`paperboy import --index-workers` gives the server's count).
WORKERS = 2
# Analysed once loaded; paper_search is analysed once filled (complete).
ANALYZED = ("papers", "paper_authors")
AUTOVACUUM_SETTINGS = "autovacuum_enabled, toast.autovacuum_enabled"
NO_AUTOVACUUM = "autovacuum_enabled = false, toast.autovacuum_enabled = false"
# What the GIN build may use: the server's default is sized for small indexes.
GIN_BUILD_MEMORY = "512MB"

# A paper's words as search.word_index.DOCUMENT gives them, its authors' names joined once per
# span rather than looked up paper by paper (the same tsvector, in half the time).
_DOCUMENTS = (
    "INSERT INTO paper_search (arxiv_id, document) "
    "SELECT p.arxiv_id, setweight(to_tsvector('english', p.title), 'A') || "
    "setweight(to_tsvector('english', p.abstract), 'B') || "
    "setweight(to_tsvector('english', coalesce(a.names, '')), 'C') "
    "FROM papers AS p LEFT JOIN ("
    "  SELECT arxiv_id, string_agg(name, ' ' ORDER BY position) AS names FROM paper_authors "
    "  {authors} GROUP BY arxiv_id"
    ") AS a USING (arxiv_id) {papers} "
    "ON CONFLICT (arxiv_id) DO NOTHING"
)
# A span of the papers found without words. No anti-join with paper_search: while it fills,
# its statistics lag (it was empty when analysed), and the planner then scans all of it for
# each span. After a kill, a span may straddle papers a committed span gave words: theirs
# are computed again and left as they were.
_FILL_SPAN = text(
    _DOCUMENTS.format(
        authors="WHERE arxiv_id BETWEEN :first AND :last",
        papers="WHERE p.arxiv_id BETWEEN :first AND :last",
    )
)
_FILL_ALL = text(
    _DOCUMENTS.format(
        authors="",
        papers="WHERE NOT EXISTS (SELECT 1 FROM paper_search AS s WHERE s.arxiv_id = p.arxiv_id)",
    )
)
_MISSING = text(
    "SELECT p.arxiv_id FROM papers AS p WHERE NOT EXISTS "
    "(SELECT 1 FROM paper_search AS s WHERE s.arxiv_id = p.arxiv_id) ORDER BY p.arxiv_id"
)
_RECOUNT = ("TRUNCATE paper_search_words", COUNT_WORDS)


class WordIndexAfterLoad:
    """The word index's work deferred by a first import (a no-op where there is none);
    ``workers`` statements compute the documents at once, ``span_papers`` papers each."""

    def __init__(self, workers: int = WORKERS, span_papers: int = SPAN_PAPERS) -> None:
        if workers < 1 or span_papers < 1:
            raise ValueError("workers and span_papers must be at least 1")
        self.workers = workers
        self.span_papers = span_papers

    def defer(self, connection: Connection) -> None:
        """Triggers off and the GIN index dropped, in the caller's transaction."""
        if not _has_word_index(connection):
            return
        connection.execute(text(f"DROP INDEX IF EXISTS {GIN_INDEX}"))
        # Vacuuming the table while it fills would take a core from the documents' workers.
        connection.execute(text(f"ALTER TABLE {SEARCH_TABLE} SET ({NO_AUTOVACUUM})"))
        for table, name in trigger_names():
            connection.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER {name}"))

    def pending(self, connection: Connection) -> bool:
        return _has_word_index(connection) and bool(disabled_triggers(connection))

    def finish(self, sessions: sessionmaker[Session]) -> dict[str, float]:
        """Documents, counts and the GIN index of what was loaded; seconds of each step.
        Nothing when no work is pending."""
        with session_scope(sessions) as session:
            if not self.pending(session.connection()):
                return {}
            # Statistics of the tables just loaded: without them the planner may join a span's
            # papers to their authors as if the tables were small (minutes instead of seconds).
            for table in ANALYZED:
                session.execute(text(f"ANALYZE {table}"))
            missing = list(session.scalars(_MISSING))
        started = time.perf_counter()
        _fill(sessions, missing, self.workers, self.span_papers)
        steps = {"documents": time.perf_counter() - started}
        with session_scope(sessions) as session:
            steps.update(complete(session.connection()))
        return steps


def complete(connection: Connection) -> dict[str, float]:
    """Count the words, build the GIN index and set the triggers on, in this transaction;
    seconds of each step. Writers wait meanwhile: a paper another process stored after the
    missing documents were listed gets its words here, before the triggers are on again."""
    steps: dict[str, float] = {}
    connection.execute(text("LOCK TABLE papers, paper_authors IN SHARE ROW EXCLUSIVE MODE"))
    started = time.perf_counter()
    connection.execute(text(f"ANALYZE {SEARCH_TABLE}"))  # last analysed empty
    connection.execute(_FILL_ALL)
    steps["stragglers"] = time.perf_counter() - started
    started = time.perf_counter()
    for statement in _RECOUNT:
        connection.execute(text(statement))
    steps["word counts"] = time.perf_counter() - started
    started = time.perf_counter()
    connection.execute(text(f"SET LOCAL maintenance_work_mem = '{GIN_BUILD_MEMORY}'"))
    connection.execute(
        text(f"CREATE INDEX IF NOT EXISTS {GIN_INDEX} ON {SEARCH_TABLE} USING gin (document)")
    )
    steps["GIN index"] = time.perf_counter() - started
    connection.execute(text(f"ALTER TABLE {SEARCH_TABLE} RESET ({AUTOVACUUM_SETTINGS})"))
    for table, name in disabled_triggers(connection):
        connection.execute(text(f"ALTER TABLE {table} ENABLE TRIGGER {name}"))
    connection.execute(text("ANALYZE paper_search_words"))
    return steps


def finish_in_transaction(connection: Connection) -> None:
    """The deferred work of an import killed on the way, if any, in one transaction
    (``paperboy migrate``'s way: one statement for every missing document)."""
    if WordIndexAfterLoad().pending(connection):
        for table in ANALYZED:
            connection.execute(text(f"ANALYZE {table}"))
        complete(connection)


def _fill(
    sessions: sessionmaker[Session], missing: Sequence[str], workers: int, span_papers: int
) -> None:
    spans = [
        (missing[start], missing[min(start + span_papers, len(missing)) - 1])
        for start in range(0, len(missing), span_papers)
    ]

    def fill(span: tuple[str, str]) -> None:
        with session_scope(sessions) as session:
            session.execute(_FILL_SPAN, {"first": span[0], "last": span[1]})

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for _ in pool.map(fill, spans):  # re-raises the first failure
            pass


def _has_word_index(connection: Connection) -> bool:
    if connection.dialect.name != "postgresql":
        return False
    exists = text("SELECT to_regclass(:table) IS NOT NULL")
    return bool(connection.execute(exists, {"table": SEARCH_TABLE}).scalar_one())
