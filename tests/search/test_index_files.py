"""The search index saved under DATA_DIR: written whole, reopened as built, kept by the embed
step. (The web process's side, opening and rebuilding it, is tests/search/test_in_process.py.)"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import numpy as np
import pytest

from app.core.db import session_scope
from app.core.models import PaperEmbedding
from app.services import editions
from ingest.paper_writer import store_records
from ingest.records import PaperRecord
from ranking.embeddings import import_matrix
from search.database_indexes import has_vector_column
from search.in_process import keyword_scores, matches
from search.index import Index, build_index, closeness
from search.index_files import IndexFilesError, current_generation, index_directory, open_current
from search.index_writer import BadStoredVectorError, write_search_index
from search.query import Filters
from tests.conftest import Database

# Words with accents, stop words, a title's words and authors': what tokenizing must agree on.
PAPERS = (
    ("2501.00001", "Naïve Bayes for café reviews", "We classify reviews of cafés.", "José Pérez"),
    ("2501.00002", "Schrödinger bridges", "Diffusion models as Schrödinger bridges.", "Ada Ng"),
    ("2501.00003", "Video diffusion at scale", "A diffusion model for long video.", "Li Wei"),
    ("2501.00004", "Graph neural networks for molecules", "Message passing on molecules.", "Bo Li"),
    ("2501.00005", "The role of the learning rate", "Of the rates we tried, one works.", "Ann Ek"),
    ("2501.00006", "Robots that grasp", "Grasping policies learned in simulation.", "Wei Li"),
)
CATEGORIES = ("cs.LG", "cs.CV", "cs.RO")
QUERIES = (
    "naive bayes cafe",
    "Pérez",
    "schrodinger bridge",
    "video diffusion",
    "the of",
    "zzqx",
    "molecules graph",
    "learning rate",
    "grasp robots simulation",
    "Li Wei diffusion",
)
FILTERS = (
    Filters(),
    Filters(category="cs.CV"),
    Filters(since=date(2025, 1, 3)),
    Filters(until=date(2025, 1, 2), category="cs.LG"),
)


def records(papers: tuple[tuple[str, str, str, str], ...] = PAPERS) -> list[PaperRecord]:
    return [
        PaperRecord(
            arxiv_id=arxiv_id,
            version=1,
            title=title,
            abstract=abstract,
            authors=(author,),
            categories=(CATEGORIES[i % 3],),
            primary_category=CATEGORIES[i % 3],
            announced_on=date(2025, 1, 1 + i % 4),
        )
        for i, (arxiv_id, title, abstract, author) in enumerate(papers)
    ]


def fill(database: Database, papers: list[PaperRecord], seed: int = 0, dimensions: int = 8) -> None:
    """Papers and a random unit vector for each (stored as `import-embeddings` stores them)."""
    shape = (len(papers), dimensions)
    vectors = np.random.default_rng(seed).normal(size=shape).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with session_scope(database.sessions) as session:
        store_records(session, papers)
        session.flush()
        ids = [paper.arxiv_id for paper in papers]
        import_matrix(session, vectors, ids, database.settings.embedding_model)


def built(database: Database) -> Index:
    with database.sessions() as session:
        return build_index(session, database.settings.embedding_model)


def answers(index: Index, row: int) -> list[list[tuple[str, float]]]:
    """Every query under every filter, with paper ``row``'s vector as the query's meaning."""
    meaning = closeness(index.vectors, index.vectors[row])
    found = [matches(index, keyword_scores(index, q), meaning, f) for q in QUERIES for f in FILTERS]
    return [[(index.ids[m.row], m.relevance) for m in one] for one in found]


def written(database: Database, directory: Path, chunk_papers: int = 20_000) -> str:
    with database.sessions() as session:
        model = database.settings.embedding_model
        return write_search_index(session, directory, model, chunk_papers).generation


@pytest.mark.parametrize("chunk_papers", [20_000, 4, 1])
def test_a_written_index_answers_every_query_as_one_built_in_memory(
    database: Database, tmp_path: Path, chunk_papers: int
) -> None:
    papers = records()
    fill(database, papers[:-1])  # the last paper has no vector
    with session_scope(database.sessions) as session:
        store_records(session, papers[-1:])
    index = built(database)
    model = database.settings.embedding_model
    written(database, tmp_path, chunk_papers)
    opened = open_current(tmp_path, model)
    assert opened is not None and opened.generation == current_generation(tmp_path)
    assert opened.ids == index.ids and opened.state == index.state
    assert {c: list(rows) for c, rows in opened.by_category.items()} == {
        c: list(rows) for c, rows in index.by_category.items()
    }
    assert np.array_equal(opened.vectors, index.vectors)
    assert np.array_equal(opened.has_vector, index.has_vector) and not opened.has_vector[-1]
    assert np.array_equal(opened.announced, index.announced)
    assert list(opened.terms.get_feature_names_out()) == list(index.terms.get_feature_names_out())
    assert np.array_equal(opened.terms.idf_, index.terms.idf_)
    for part in ("data", "indices", "indptr"):
        found, in_memory = getattr(opened.keyword_matrix, part), getattr(index.keyword_matrix, part)
        assert found.dtype == in_memory.dtype and found.tobytes() == in_memory.tobytes()
    for row in range(len(index.ids)):
        assert answers(opened, row) == answers(index, row)
    assert answers(index, 0)[0][0][0] == "2501.00001"  # "naive bayes cafe" finds the café paper
    # The same words as the fitted vectorizer, accents and stop words included.
    for query in QUERIES:
        assert opened.terms.build_analyzer()(query) == index.terms.build_analyzer()(query)
        assert np.array_equal(
            keyword_scores(opened, query).keyword, keyword_scores(index, query).keyword
        )


def test_an_empty_store_saves_and_reopens_an_index_that_matches_nothing(
    database: Database, tmp_path: Path
) -> None:
    written(database, tmp_path)
    opened = open_current(tmp_path, database.settings.embedding_model)
    assert opened is not None and opened.ids == [] and opened.terms is None
    assert matches(opened, keyword_scores(opened, "anything"), None, Filters()) == []


def test_a_new_generation_replaces_the_current_one_and_two_are_kept(
    database: Database, tmp_path: Path
) -> None:
    fill(database, records())
    model = database.settings.embedding_model
    with database.sessions() as session:
        names = [write_search_index(session, tmp_path, model).generation for _ in range(3)]
    assert current_generation(tmp_path) == names[2]
    kept = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("g"))
    assert kept == sorted(names[1:])


def test_a_generation_that_does_not_add_up_is_refused_in_words(
    database: Database, tmp_path: Path
) -> None:
    fill(database, records())
    model = database.settings.embedding_model
    generation = tmp_path / written(database, tmp_path)
    np.save(generation / "keywords.indices.npy", np.zeros(3, dtype=np.int32))
    with pytest.raises(IndexFilesError, match=r"keywords\.indices\.npy"):
        open_current(tmp_path, model)
    with pytest.raises(IndexFilesError, match="not other-model"):
        open_current(tmp_path, "other-model")
    (tmp_path / "current").write_text("g-never-written\n")
    with pytest.raises(IndexFilesError, match="g-never-written"):
        open_current(tmp_path, model)


def test_the_embed_step_writes_the_index_where_search_is_in_the_process(
    database: Database,
) -> None:
    fill(database, records())
    settings, directory = database.settings, index_directory(database.settings.data_dir)
    in_process = not has_vector_column(database.engine)
    # Every vector is current: the step embeds nothing (no model loads) but writes the index.
    report = editions.embed(settings, database.sessions, None)
    assert report.summary.embedded == 0
    if not in_process:
        assert report.search_index is None and current_generation(directory) is None
        return
    assert report.search_index is not None
    assert f"search index: {len(PAPERS)} papers written" in report.lines()[1]
    first = current_generation(directory)
    opened = open_current(directory, settings.embedding_model)
    assert opened is not None and opened.ids == sorted(p[0] for p in PAPERS)
    # Run again on the same store: the index is current, nothing is written.
    assert editions.embed(settings, database.sessions, None).search_index is None
    assert current_generation(directory) == first
    # New papers with their vectors: the next step writes a new generation holding them.
    fill(database, records((("2501.00007", "Zebrafish embryos", "Imaging.", "Eva Lund"),)), 1)
    assert editions.embed(settings, database.sessions, None).search_index is not None
    reopened = open_current(directory, settings.embedding_model)
    assert reopened is not None and "2501.00007" in reopened.ids
    assert current_generation(directory) != first


def test_a_write_that_fails_leaves_the_current_generation_and_no_staging(
    database: Database, tmp_path: Path
) -> None:
    fill(database, records())
    model = database.settings.embedding_model
    first = written(database, tmp_path)
    with session_scope(database.sessions) as session:
        stored = session.get(PaperEmbedding, ("2501.00003", model))
        assert stored is not None
        stored.vector = stored.vector[:12]  # cut short: three values where eight are promised
    with pytest.raises(
        BadStoredVectorError, match=r"2501\.00003: a vector of 12 bytes under .* it is damaged"
    ):
        written(database, tmp_path, chunk_papers=2)
    assert current_generation(tmp_path) == first
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".staging")] == []
    opened = open_current(tmp_path, model)
    assert opened is not None and len(opened.ids) == len(PAPERS)
