"""A web process never builds the int8 query model (that would load torch into it for good):
without the model its searches go by words and say so once, with meaning back as soon as the
model is built; ``paperboy migrate`` builds it beforehand."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main
from app.core.config import Settings
from app.core.db import session_scope
from app.web.app import create_app
from ingest.paper_writer import store_records
from ranking.embedder import resolve_model_path
from ranking.embeddings import import_matrix
from ranking.onnx_encoder import OnnxEncoder, query_model_path
from search.database_indexes import has_vector_column
from tests.conftest import Database, with_int8_query_model
from tests.search.test_index_files import fill, records

MISSING = "no int8 query model at"


def _int8_without_model(database: Database, data_dir: Path) -> Settings:
    return database.settings.model_copy(
        update={"data_dir": data_dir, "search_query_backend": "onnx-int8", "search_preload": True}
    )


def _search(client: TestClient, query: str) -> list[str]:
    answer = client.get("/api/papers/search", params={"q": query})
    assert answer.status_code == 200
    return [item["paper"]["id"] for item in answer.json()]


def test_a_web_process_without_the_query_model_searches_by_words_and_builds_nothing(
    database: Database, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fill(database, records(), dimensions=384)
    settings = _int8_without_model(database, tmp_path)
    with caplog.at_level(logging.WARNING), TestClient(create_app(settings)) as client:
        assert _search(client, "video diffusion")[0] == "2501.00003"  # by its words
        assert _search(client, "diffusion") != []
    assert not query_model_path(settings).exists()
    said = [record.getMessage() for record in caplog.records if MISSING in record.getMessage()]
    assert len(said) == 1 and "paperboy migrate" in said[0]


def _fill_with_meaning(database: Database, model: Path) -> None:
    """The papers with their vectors from the int8 model itself, as the embed step stores
    them, so that a query's meaning finds what its words do not."""
    papers = records()
    source = Path(resolve_model_path(database.settings.embedding_model))
    encoder = OnnxEncoder.open(model, source, 1)
    vectors = encoder.encode([f"{p.title}. {p.abstract}" for p in papers], batch_size=8)
    with session_scope(database.sessions) as session:
        store_records(session, papers)
        session.flush()
        ids = [paper.arxiv_id for paper in papers]
        import_matrix(session, vectors, ids, database.settings.embedding_model)


def test_meaning_comes_back_once_the_model_is_built(
    database: Database, tmp_path: Path, int8_query_model: Path
) -> None:
    _fill_with_meaning(database, int8_query_model)
    settings = _int8_without_model(database, tmp_path)
    # No word of it is in any paper: only its meaning can find the robots.
    query = "robotic manipulation"
    # PostgreSQL's word index stems "robotic" to "robot": there words alone find the paper.
    stems = has_vector_column(database.engine)
    with TestClient(create_app(settings)) as client:
        assert stems or _search(client, query) == []
        with_int8_query_model(settings, int8_query_model, tmp_path)  # the embed step's work
        assert _search(client, query)[0] == "2501.00006"


def test_migrate_builds_the_query_model_once(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'paperboy.sqlite3'}",
        data_dir=tmp_path,
        search_query_backend="onnx-int8",
    )
    assert main(["migrate"], settings) == 0
    assert query_model_path(settings).exists()
    built = query_model_path(settings).stat().st_mtime_ns
    assert main(["migrate"], settings) == 0
    assert query_model_path(settings).stat().st_mtime_ns == built
