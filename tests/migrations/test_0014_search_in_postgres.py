"""Migration 0014 on a database that already holds a paper, its author and its embedding."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from alembic import command
from sqlalchemy import Engine, inspect, text

from app.core.schema import alembic_config, upgrade_to_head
from app.core.vectors import normalise, pack
from search.database_indexes import MISSING_LINE, complete, forget, has_vector_column
from tests.migrations.conftest import database_at

PAPER = "2512.16698"
VECTOR = normalise(np.arange(1, 385, dtype=np.float32).reshape(1, 384))[0]


@pytest.fixture
def engine_at_0013(tmp_path: Path) -> Iterator[Engine]:
    with database_at("0013", tmp_path) as engine:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO papers (arxiv_id, title, abstract, content_hash) "
                    "VALUES (:paper, 'Animating characters', 'Video diffusion priors.', 'x')"
                ),
                {"paper": PAPER},
            )
            connection.execute(text("INSERT INTO authors (key, name) VALUES ('a-b', 'Ann Bee')"))
            connection.execute(
                text(
                    "INSERT INTO paper_authors (arxiv_id, position, author_key, name) "
                    "VALUES (:paper, 0, 'a-b', 'Ann Bee')"
                ),
                {"paper": PAPER},
            )
            connection.execute(
                text(
                    "INSERT INTO paper_embeddings (arxiv_id, model, text_hash, dimensions, "
                    "vector, computed_at) VALUES (:paper, 'm', 'h', 384, :vector, :at)"
                ),
                {"paper": PAPER, "vector": pack(VECTOR), "at": datetime(2026, 1, 1, tzinfo=UTC)},
            )
        forget(engine)
        yield engine


def _postgres(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("0014 changes PostgreSQL only (set PAPERBOY_TEST_DATABASE_URL)")


def test_sqlite_is_left_as_it_was(engine_at_0013: Engine) -> None:
    if engine_at_0013.dialect.name != "sqlite":
        pytest.skip("the SQLite case")
    before = sorted(inspect(engine_at_0013).get_table_names())
    command.upgrade(alembic_config(engine_at_0013), "0014")
    assert sorted(inspect(engine_at_0013).get_table_names()) == before
    assert complete(engine_at_0013) is None


def test_stored_papers_get_their_words_indexed_with_title_abstract_and_authors(
    engine_at_0013: Engine,
) -> None:
    _postgres(engine_at_0013)
    upgrade_to_head(engine_at_0013)
    with engine_at_0013.connect() as connection:
        found = connection.execute(
            text(
                "SELECT arxiv_id FROM paper_search "
                "WHERE document @@ plainto_tsquery('english', 'animated bee diffusion')"
            )
        ).scalars()
        assert list(found) == [PAPER]


def test_stored_vectors_are_copied_to_halfvec_and_indexed_where_pgvector_is(
    engine_at_0013: Engine,
) -> None:
    _postgres(engine_at_0013)
    upgrade_to_head(engine_at_0013)
    if not has_vector_column(engine_at_0013):
        pytest.skip("needs pgvector on the test server (make pgvector-server)")
    with engine_at_0013.connect() as connection:
        copied = connection.execute(
            text("SELECT CAST(embedding AS text) FROM paper_embeddings")
        ).scalar_one()
        indexes = connection.execute(
            text("SELECT indexdef FROM pg_indexes WHERE tablename = 'paper_embeddings'")
        ).scalars()
        assert any("hnsw" in d and "halfvec(384)" in d for d in indexes)
    halves = np.array([float(v) for v in copied.strip("[]").split(",")])
    assert np.allclose(halves, VECTOR, atol=1e-3)


def test_without_pgvector_only_the_words_are_indexed_and_migrate_says_so(
    engine_at_0013: Engine,
) -> None:
    _postgres(engine_at_0013)
    upgrade_to_head(engine_at_0013)
    if has_vector_column(engine_at_0013):
        pytest.skip("needs PostgreSQL without pgvector (the fallback)")
    assert "paper_search" in inspect(engine_at_0013).get_table_names()
    assert complete(engine_at_0013) == MISSING_LINE


def test_downgrading_removes_what_0014_made(engine_at_0013: Engine) -> None:
    _postgres(engine_at_0013)
    upgrade_to_head(engine_at_0013)
    command.downgrade(alembic_config(engine_at_0013), "0013")
    assert "paper_search" not in inspect(engine_at_0013).get_table_names()
    columns = {c["name"] for c in inspect(engine_at_0013).get_columns("paper_embeddings")}
    assert "embedding" not in columns
    with engine_at_0013.begin() as connection:
        connection.execute(text("UPDATE papers SET title = 'Another title'"))
