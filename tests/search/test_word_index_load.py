"""PostgreSQL's word index built once after a first import: the same documents and counts the
triggers keep, the triggers on again after, and an import killed on the way finished by the
next import or by ``paperboy migrate``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest
from sqlalchemy import text

from app.core.db import session_scope
from ingest.bulk.importer import import_file
from ingest.paper_writer import store_records
from ingest.records import PaperRecord
from search.database_indexes import complete
from search.word_index import DOCUMENT, GIN_INDEX, disabled_triggers
from search.word_index_load import WordIndexAfterLoad
from tests.conftest import SAMPLE_PATH, Database

LATE = PaperRecord(
    arxiv_id="2601.09999",
    version=1,
    title="Quasicrystal phonons",
    abstract="Phonons of a quasicrystal, measured.",
    authors=("Dan Shechtman",),
    categories=("cond-mat.mtrl-sci",),
    primary_category="cond-mat.mtrl-sci",
    announced_on=date(2026, 1, 9),
)


@pytest.fixture
def words(database: Database) -> Iterator[Database]:
    if database.engine.dialect.name != "postgresql":
        pytest.skip("needs PostgreSQL: set PAPERBOY_TEST_DATABASE_URL (see .ci/run)")
    with database.engine.connect() as connection:
        if not connection.execute(text("SELECT to_regclass('paper_search')")).scalar():
            pytest.skip("the word index is installed with pgvector's migration")
    yield database
    complete(database.engine)  # triggers on again for the next tests, whatever happened


def word_index_state(database: Database) -> dict[str, object]:
    """What a word index kept by its triggers must hold, checked against computing it afresh."""
    with database.engine.connect() as connection:

        def one(query: str) -> object:
            return connection.execute(text(query)).scalar_one()

        counted = "SELECT word, papers FROM paper_search_words WHERE papers <> 0"
        recounted = (
            "SELECT word, ndoc FROM ts_stat('SELECT document FROM paper_search') "
            "UNION ALL SELECT '', count(*) FROM paper_search"
        )
        return {
            "papers without words": one(
                "SELECT count(*) FROM papers AS p WHERE NOT EXISTS "
                "(SELECT 1 FROM paper_search AS s WHERE s.arxiv_id = p.arxiv_id)"
            ),
            "stale documents": one(
                "SELECT count(*) FROM paper_search AS s JOIN papers AS p USING (arxiv_id) "
                f"WHERE s.document IS DISTINCT FROM {DOCUMENT}"
            ),
            "counts as recounted": set(map(tuple, connection.execute(text(counted))))
            == set(map(tuple, connection.execute(text(recounted)))),
            "GIN index": one(f"SELECT to_regclass('{GIN_INDEX}') IS NOT NULL"),
            "table options": one(
                "SELECT coalesce(array_to_string(reloptions, ','), '') FROM pg_class "
                "WHERE relname = 'paper_search'"
            ),
            "triggers off": disabled_triggers(connection),
        }


KEPT = {
    "papers without words": 0,
    "stale documents": 0,
    "counts as recounted": True,
    "GIN index": True,
    "table options": "",
    "triggers off": [],
}


def test_a_first_import_builds_the_word_index_after_its_rows(words: Database) -> None:
    summary = import_file(SAMPLE_PATH, words.sessions, deferred_work=(WordIndexAfterLoad(),))
    assert summary.exit_code == 0
    assert set(summary.finished_after) == {"documents", "stragglers", "word counts", "GIN index"}
    assert "built after the rows: documents" in summary.line()
    assert word_index_state(words) == KEPT
    # The triggers keep it again: a paper stored live has its words at once.
    with session_scope(words.sessions) as session:
        store_records(session, [LATE])
    assert word_index_state(words) == KEPT
    # A second import is not a first: nothing deferred, nothing to finish.
    again = import_file(SAMPLE_PATH, words.sessions, deferred_work=(WordIndexAfterLoad(),))
    assert again.finished_after == {} and word_index_state(words) == KEPT


def test_documents_computed_by_several_statements_at_once_are_the_same(words: Database) -> None:
    # Spans of seven papers, three statements at once: the sample makes many spans.
    parallel = WordIndexAfterLoad(workers=3, span_papers=7)
    summary = import_file(SAMPLE_PATH, words.sessions, deferred_work=(parallel,))
    assert summary.exit_code == 0 and "documents" in summary.finished_after
    assert word_index_state(words) == KEPT


@pytest.mark.parametrize(("workers", "span_papers"), [(0, 7), (3, 0)])
def test_no_workers_or_empty_spans_are_refused(workers: int, span_papers: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        WordIndexAfterLoad(workers=workers, span_papers=span_papers)


def killed_first_import(database: Database) -> None:
    """What an import killed after its rows leaves: triggers off, no GIN, papers without words."""
    with session_scope(database.sessions) as session:
        WordIndexAfterLoad().defer(session.connection())
    with session_scope(database.sessions) as session:
        store_records(session, [LATE])
    state = word_index_state(database)
    assert state["papers without words"] == 1 and not state["GIN index"]
    assert len(state["triggers off"]) == 8  # type: ignore[arg-type]


def test_the_next_import_finishes_what_a_killed_first_import_left(words: Database) -> None:
    killed_first_import(words)
    summary = import_file(SAMPLE_PATH, words.sessions, deferred_work=(WordIndexAfterLoad(),))
    assert summary.exit_code == 0 and "documents" in summary.finished_after
    assert word_index_state(words) == KEPT


def test_migrate_finishes_what_a_killed_first_import_left(words: Database) -> None:
    killed_first_import(words)
    complete(words.engine)  # what `paperboy migrate` runs after the migrations
    assert word_index_state(words) == KEPT
