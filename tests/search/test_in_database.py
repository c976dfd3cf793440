"""Search answered by PostgreSQL (pgvector + full text), and the fallback where it cannot be.

The in-database tests need PostgreSQL with pgvector (``PAPERBOY_TEST_DATABASE_URL`` at a server
with the ``vector`` extension, ``make pgvector-server``); elsewhere they skip and say why. The
site's own search tests (tests/web/test_search.py) run through the same searcher there.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import numpy as np
import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from app.core.db import session_scope
from app.core.models import Paper, PaperAuthor, PaperEmbedding
from ingest.paper_writer import store_records
from ingest.records import PaperRecord
from ranking.embedder import query_embedder
from ranking.embeddings import import_matrix
from search.database_indexes import (
    MISSING_LINE,
    complete,
    halfvec_text,
    has_vector_column,
    index_name,
)
from search.in_database import (
    EF_SEARCH,
    DatabaseSearch,
    Scoring,
    candidates_statement,
    nearest_papers,
    run_search,
    tune_hnsw,
)
from search.in_process import SearchService
from search.query import FUSION, Filters
from search.searcher import make_searcher
from search.word_index import CHECKED_ROWS, DOCUMENT, WordBounds
from tests.conftest import Database

MODEL = "test-model"
ANY = Filters()
# A link whose path holds '?' and '#': parsed alone, its path is other words than in the whole.
LINK = "https://github.com/ada-lab/moe-router?tab=readme-ov-file#usage"
# A link whose path holds a quote: its lexeme must be quoted to be asked for as it is.
QUOTED_LINK = "example.org/o'neil/mesh?v=2#top"
PAPERS = [
    PaperRecord(
        arxiv_id="2601.00001",
        version=1,
        title="Sparse mixture of experts routing",
        abstract=f"Experts share the load. Code: {LINK}",
        authors=("Ada Lovelace",),
        categories=("cs.LG",),
        primary_category="cs.LG",
        announced_on=date(2026, 1, 5),
    ),
    PaperRecord(
        arxiv_id="2601.00002",
        version=1,
        title="Routing packets in mesh networks",
        abstract=f"Wireless mesh routing tables at {QUOTED_LINK}",
        authors=("Grace Hopper",),
        categories=("cs.NI",),
        primary_category="cs.NI",
        announced_on=date(2026, 1, 6),
    ),
    PaperRecord(
        arxiv_id="2601.00003",
        version=1,
        title="Galaxy rotation curves",
        abstract="Dark matter halos and rotation.",
        authors=("Vera Rubin",),
        categories=("astro-ph.GA",),
        primary_category="astro-ph.GA",
        announced_on=date(2026, 1, 7),
    ),
]
OURS = {paper.arxiv_id for paper in PAPERS}
# Four dimensions: the first two papers close in meaning, the third far from both.
VECTORS = np.array([[1, 0.2, 0, 0], [0.9, 0.5, 0, 0], [0, 0, 1, 0.1]], dtype=np.float32)


@pytest.fixture
def pgvector(database: Database) -> Database:
    if database.engine.dialect.name != "postgresql":
        pytest.skip("needs PostgreSQL: set PAPERBOY_TEST_DATABASE_URL (see .ci/run)")
    if not has_vector_column(database.engine):
        pytest.skip("needs pgvector on the test server (make pgvector-server)")
    return database


@pytest.fixture
def stored(pgvector: Database) -> sessionmaker[Session]:
    with session_scope(pgvector.sessions) as session:
        store_records(session, PAPERS)
        session.flush()
        vectors = VECTORS / np.linalg.norm(VECTORS, axis=1, keepdims=True)
        import_matrix(session, vectors, [p.arxiv_id for p in PAPERS], MODEL)
    return pgvector.sessions


def _search(
    sessions: sessionmaker[Session],
    query: str,
    vector: Sequence[float] | None = None,
    filters: Filters = ANY,
) -> list[str]:
    asked = None if vector is None else np.asarray(vector, dtype=np.float32)
    with sessions() as session, session.begin():
        found = run_search(session, query, asked, filters, Scoring(MODEL))
    # Only these papers: the package's site (tests/web/conftest.py) may be stored beside them.
    return [found.ids[m.row] for m in found.matches if found.ids[m.row] in OURS]


def test_words_find_papers_by_title_abstract_and_author_best_first(
    stored: sessionmaker[Session],
) -> None:
    assert _search(stored, "routing") == ["2601.00002", "2601.00001"]
    assert _search(stored, "lovelace") == ["2601.00001"]
    assert _search(stored, "halo") == ["2601.00003"]
    assert _search(stored, "bicycle cupboard") == []


def _by_words(
    sessions: sessionmaker[Session], query: str, checked_rows: int = CHECKED_ROWS
) -> set[str]:
    """The word candidates of a search with meaning: papers holding every query word."""
    statement, _ = candidates_statement(ANY, len(VECTORS[0]), WordBounds(checked_rows))
    words = statement[: statement.index(",\nnearest AS")]  # the CTEs by_words needs
    with sessions() as session, session.begin():
        rows = session.execute(text(words + " SELECT arxiv_id FROM by_words"), {"query": query})
        return {row.arxiv_id for row in rows} & OURS


def test_word_candidates_hold_every_word(stored: sessionmaker[Session]) -> None:
    # The galaxy paper holds three of the four words, not "routing".
    assert _by_words(stored, "routing galaxy rotation curves") == set()
    assert _by_words(stored, "galaxy rotation curves") == {"2601.00003"}
    assert _by_words(stored, "routing sparse mixture experts") == {"2601.00001"}


def _by_some_words(sessions: sessionmaker[Session], query: str, pool: int) -> set[str]:
    """The word candidates of a search without meaning, the rarest words held by ``pool``."""
    statement, _ = candidates_statement(ANY, None, WordBounds(pool=pool))
    words = statement[: statement.index(",\ncandidates AS")]
    with sessions() as session, session.begin():
        rows = session.execute(text(words + " SELECT arxiv_id FROM by_words"), {"query": query})
        return {row.arxiv_id for row in rows} & OURS


def test_without_meaning_the_index_is_asked_for_the_rarest_words_within_the_pool(
    stored: sessionmaker[Session],
) -> None:
    # "routing" is held by two papers, "galaxy" by one: within a pool of three papers both
    # are asked for; within one, the rarest alone (the papers holding only "routing" would
    # score below a paper holding the rarer word).
    assert _by_some_words(stored, "routing galaxy", 3) == OURS
    assert _by_some_words(stored, "routing galaxy", 1) == {"2601.00003"}
    # A word no paper holds costs nothing.
    assert _by_some_words(stored, "xyzzyq galaxy routing", 1) == {"2601.00003"}


def test_without_meaning_a_filter_the_rare_words_miss_still_finds_the_other_words(
    stored: sessionmaker[Session],
) -> None:
    # "galaxy", the rarest, is held outside cs.LG only: papers in it holding "routing" answer.
    assert _search(stored, "routing galaxy", filters=Filters(category="cs.LG")) == ["2601.00001"]
    statement, _ = candidates_statement(Filters(category="cs.LG"), None, WordBounds(pool=1))
    words = statement[: statement.index(",\ncandidates AS")]
    with stored() as session, session.begin():
        rows = session.execute(
            text(words + " SELECT arxiv_id FROM by_words"),
            {"query": "routing galaxy", "category": "cs.LG"},
        )
        assert {row.arxiv_id for row in rows} & OURS == {"2601.00001"}


def test_without_meaning_a_query_of_common_words_ranks_the_papers_holding_every_one(
    stored: sessionmaker[Session],
) -> None:
    # Every word held by more papers than the pool: papers holding all of them.
    assert _by_some_words(stored, "routing mesh", 0) == {"2601.00002"}
    assert _by_some_words(stored, "routing galaxy", 0) == set()
    assert _by_some_words(stored, "xyzzyq routing mesh", 0) == {"2601.00002"}
    assert _by_some_words(stored, "the and of", 0) == set()


def _holding_every_word(sessions: sessionmaker[Session], query: str) -> set[str]:
    """Papers holding every query word, asked of the word index directly."""
    asked = "SELECT arxiv_id FROM paper_search WHERE document @@ plainto_tsquery('english', :q)"
    with sessions() as session:
        return set(session.execute(text(asked), {"q": query}).scalars()) & OURS


@pytest.mark.parametrize(
    "query",
    [
        "routing galaxy rotation curves",
        "galaxy rotation curves",
        "routing sparse mixture experts",
        "routing mesh",
        "rotation",
        "wireless mesh routing tables experts",
        LINK,
        f"experts {LINK}",
        "github.com/ada-lab/moe-router?tab=readme-ov-file#usage",
        "code o'brien \\ routing",
        "sparse mixture-of-experts routing",
        QUOTED_LINK,
        f"mesh {QUOTED_LINK}",
    ],
)
def test_the_word_index_shortcut_finds_what_asking_for_every_word_finds(
    stored: sessionmaker[Session], query: str
) -> None:
    # Row check of the papers holding the rare words (up to 1,000 here).
    assert _by_words(stored, query, 1000) == _holding_every_word(stored, query)


def test_with_meaning_words_too_common_to_narrow_leave_the_answer_to_meaning(
    stored: sessionmaker[Session],
) -> None:
    # More papers hold the rare words than are checked (none are, here): the words add no
    # candidates, and the nearest in meaning are still scored by the words they hold.
    assert _holding_every_word(stored, "routing mesh") == {"2601.00002"}
    assert _by_words(stored, "routing mesh", 0) == set()
    statement, _ = candidates_statement(ANY, len(VECTORS[0]), WordBounds(checked_rows=0))
    meaning = VECTORS[1] / np.linalg.norm(VECTORS[1])
    with stored() as session, session.begin():
        rows = session.execute(
            text(statement + " SELECT arxiv_id, keyword, coverage FROM scored"),
            {"query": "routing mesh", "scale": 1, "model": MODEL}
            | {"vector": halfvec_text(meaning)},
        )
        scored = {row.arxiv_id: (row.keyword, row.coverage) for row in rows}
    assert scored["2601.00002"][0] > 0
    assert scored["2601.00002"][1] == pytest.approx(1.0)
    assert scored["2601.00001"][1] < 1


def test_a_word_too_long_for_the_index_is_left_out_of_the_query(
    stored: sessionmaker[Session],
) -> None:
    # PostgreSQL drops a word over 2,047 bytes from a query; it must not leave an empty word.
    query = f"routing {'中' * 690}"
    assert _by_words(stored, query) == {"2601.00001", "2601.00002"}
    meaning = list(VECTORS[0] / np.linalg.norm(VECTORS[0]))
    assert "2601.00002" in _search(stored, query, meaning)


def test_a_link_in_the_query_finds_and_covers_the_paper_that_gives_it(
    stored: sessionmaker[Session],
) -> None:
    assert _by_words(stored, LINK) == {"2601.00001"}
    assert _search(stored, LINK) == ["2601.00001"]
    assert _by_words(stored, QUOTED_LINK) == {"2601.00002"}
    assert _search(stored, QUOTED_LINK) == ["2601.00002"]
    statement, _ = candidates_statement(ANY, None)
    with stored() as session, session.begin():
        rows = session.execute(
            text(statement + " SELECT arxiv_id, coverage FROM scored"), {"query": LINK, "scale": 1}
        )
        assert {row.arxiv_id: row.coverage for row in rows if row.arxiv_id in OURS} == {
            "2601.00001": pytest.approx(1.0)
        }


def test_the_hnsw_settings_hold_for_the_search_transaction_only(pgvector: Database) -> None:
    with pgvector.sessions() as session:
        with session.begin():
            tune_hnsw(session)
            assert session.execute(text("SHOW hnsw.ef_search")).scalar() == str(EF_SEARCH)
            assert session.execute(text("SHOW hnsw.iterative_scan")).scalar() == "relaxed_order"
        assert session.execute(text("SHOW hnsw.ef_search")).scalar() == "40"  # pgvector's


def test_filters_apply_in_the_statement(stored: sessionmaker[Session]) -> None:
    assert _search(stored, "routing", filters=Filters(category="cs.LG")) == ["2601.00001"]
    assert _search(stored, "routing", filters=Filters(since=date(2026, 1, 6))) == ["2601.00002"]
    assert _search(stored, "routing", filters=Filters(until=date(2026, 1, 5))) == ["2601.00001"]


def test_meaning_admits_close_papers_and_never_weak_neighbours(
    stored: sessionmaker[Session],
) -> None:
    # The query means what the first paper means; the second is close, the third is not.
    query = list(VECTORS[0] / np.linalg.norm(VECTORS[0]))
    assert _search(stored, "unrelated words", query) == ["2601.00001", "2601.00002"]
    # Every query word held admits a paper whatever its meaning.
    assert "2601.00003" in _search(stored, "galaxy", query)
    assert _search(stored, "bicycle", [0.0, 1.0, 0.0, 0.0]) == []


def test_similar_papers_come_from_the_vector_index_without_the_paper_itself(
    stored: sessionmaker[Session],
) -> None:
    with stored() as session, session.begin():
        assert nearest_papers(session, "2601.00001", MODEL, 5) == ["2601.00002"]
        assert nearest_papers(session, "2601.00003", MODEL, 5) == []
        assert nearest_papers(session, "2699.99999", MODEL, 5) == []


def _stale_documents(sessions: sessionmaker[Session]) -> int:
    """Papers whose kept words differ from their words computed afresh."""
    query = (
        "SELECT count(*) FROM paper_search AS s JOIN papers AS p ON p.arxiv_id = s.arxiv_id "
        f"WHERE s.document IS DISTINCT FROM {DOCUMENT}"
    )
    with sessions() as session:
        return int(session.execute(text(query)).scalar_one())


def test_papers_stored_with_their_authors_have_all_their_words(
    stored: sessionmaker[Session],
) -> None:
    assert _stale_documents(stored) == 0


def test_every_writer_keeps_the_word_index_current(stored: sessionmaker[Session]) -> None:
    with session_scope(stored) as session:
        session.get_one(Paper, "2601.00003").title = "Spiral arms of barred galaxies"
        session.execute(
            text("UPDATE paper_authors SET name = 'Henrietta Leavitt' WHERE arxiv_id = :id"),
            {"id": "2601.00003"},
        )
        session.add(
            PaperAuthor(
                arxiv_id="2601.00002", position=1, author_key="ada-lovelace", name="Ada Lovelace"
            )
        )
    assert _search(stored, "spiral") == ["2601.00003"]
    assert _search(stored, "leavitt") == ["2601.00003"] and _search(stored, "rubin") == []
    assert set(_search(stored, "lovelace")) == {"2601.00001", "2601.00002"}
    assert _stale_documents(stored) == 0
    with session_scope(stored) as session:
        session.delete(session.get_one(Paper, "2601.00003"))
    with stored() as session:
        left = session.execute(text("SELECT arxiv_id FROM paper_search")).scalars()
        assert OURS & set(left) == {"2601.00001", "2601.00002"}
        # Each word's count of papers (its rarity at query time) followed every change.
        counted = "SELECT word, papers FROM paper_search_words WHERE papers <> 0"
        recounted = (
            "SELECT word, ndoc FROM ts_stat('SELECT document FROM paper_search') "
            "UNION ALL SELECT '', count(*) FROM paper_search"
        )
        assert set(map(tuple, session.execute(text(counted)))) == set(
            map(tuple, session.execute(text(recounted)))
        )


def test_a_new_dimension_gets_its_own_vector_index(stored: sessionmaker[Session]) -> None:
    with stored() as session:
        names = session.execute(
            text("SELECT indexname FROM pg_indexes WHERE tablename = 'paper_embeddings'")
        ).scalars()
        assert {"ix_paper_embeddings_embedding_384", "ix_paper_embeddings_embedding_4"} <= set(
            names
        )


def test_an_empty_store_loads_in_bulk_then_later_imports_go_row_by_row(
    pgvector: Database,
) -> None:
    width = 5  # a width no other test stores, so the store is empty of it
    raw = np.array([[1, 0.2, 0, 0, 0], [0.8, 0.6, 0, 0, 0], [0, 0, 1, 0, 0]], dtype=np.float32)
    vectors = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    ids = [paper.arxiv_id for paper in PAPERS]
    with session_scope(pgvector.sessions) as session:
        store_records(session, PAPERS)
        session.flush()
        first = import_matrix(session, vectors, ids, "wide-model")
    assert (first.stored, first.bulk) == (3, True)
    assert "loaded in bulk, vector index built once" in first.line()
    with pgvector.sessions() as session:
        assert session.execute(text("SELECT to_regclass(:name)"), {"name": index_name(width)})
        rows = session.execute(
            text(
                "SELECT arxiv_id, embedding::text FROM paper_embeddings WHERE model = 'wide-model' "
                "ORDER BY arxiv_id"
            )
        ).all()
        nearest = nearest_papers(session, "2601.00002", "wide-model", limit=3)
        stored = session.get(PaperEmbedding, ("2601.00001", "wide-model"))
    assert stored is not None and stored.dimensions == width
    assert abs(stored.computed_at - datetime.now(UTC)) < timedelta(minutes=1)
    assert np.array_equal(np.frombuffer(stored.vector, dtype="<f4"), vectors[0])
    assert [arxiv_id for arxiv_id, _ in rows] == sorted(ids)
    copied = np.array([json.loads(row[1]) for row in rows], dtype=np.float32)
    assert np.allclose(copied, vectors, atol=1e-3)  # halfvec keeps about three digits
    assert nearest == ["2601.00001"]  # by the built index; the third is orthogonal
    with session_scope(pgvector.sessions) as session:
        again = import_matrix(session, vectors, ids, "wide-model")
    assert (again.stored, again.unchanged, again.bulk) == (0, 3, False)


def test_the_site_searches_in_the_database_where_pgvector_keeps_vectors(
    pgvector: Database,
) -> None:
    assert isinstance(
        make_searcher(pgvector.settings, pgvector.sessions, query_embedder).chosen(), DatabaseSearch
    )


def test_without_pgvector_search_stays_in_the_process_and_migrate_says_so(
    database: Database,
) -> None:
    if database.engine.dialect.name == "postgresql" and has_vector_column(database.engine):
        pytest.skip("needs SQLite or PostgreSQL without pgvector (the fallback)")
    assert isinstance(
        make_searcher(database.settings, database.sessions, query_embedder).chosen(), SearchService
    )
    expected = MISSING_LINE if database.engine.dialect.name == "postgresql" else None
    assert complete(database.engine) == expected


@pytest.mark.model
def test_warming_up_loads_the_query_model_and_runs_a_search(pgvector: Database) -> None:
    with session_scope(pgvector.sessions) as session:
        store_records(session, PAPERS)
    settings = pgvector.settings.model_copy(update={"search_query_backend": "torch"})
    search = DatabaseSearch(settings, pgvector.sessions, query_embedder)
    search.warm()  # the model loads and the warm-up query runs against the real indexes
    found = search.search("galaxy rotation curves", ANY)
    assert "2601.00003" in found.ids.values()


def test_where_no_paper_holds_every_word_the_closest_come_and_the_answer_says_so(
    stored: sessionmaker[Session],
) -> None:
    # The query means something between the experts paper (cosine about 0.34) and the galaxy
    # one; the experts paper holds two of its three words.
    vector = np.array([0.35, 0.0, 0.937, 0.0], dtype=np.float32)
    vector /= np.linalg.norm(vector)
    closest = Scoring(MODEL, replace(FUSION, closest_share=0.3, closest_meaning=0.3))
    strict = Scoring(MODEL, replace(FUSION, closest_share=float("inf")))
    asked = "sparse experts xyzzyq"
    with stored() as session, session.begin():
        found = run_search(session, asked, vector, ANY, closest)
        without = run_search(session, asked, vector, ANY, strict)
        every = run_search(session, "sparse experts", vector, ANY, closest)
    assert "2601.00001" in found.ids.values()
    assert found.not_all_matched == ("sparse", "experts", "xyzzyq")
    assert "2601.00001" not in without.ids.values()
    assert "2601.00001" in every.ids.values() and every.not_all_matched == ()
