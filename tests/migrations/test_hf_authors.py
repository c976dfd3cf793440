"""Migration 0022 on a database that already holds Hugging Face signals: they keep their
counts and have no authors until read again (the live history then reads their papers')."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Engine, text

from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_at


@pytest.fixture
def engine_at_0021(tmp_path: Path) -> Iterator[Engine]:
    with database_at("0021", tmp_path) as engine:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO hf_daily_papers (daily_date, arxiv_id, upvotes, ai_keywords, "
                    "fetched_at) VALUES (:day, '2510.25602', 12, '[]', :day)"
                ),
                {"day": date(2025, 11, 3)},
            )
        yield engine


def _rows(engine: Engine, columns: str) -> list[tuple[object, ...]]:
    with engine.connect() as connection:
        query = text(f"SELECT {columns} FROM hf_daily_papers")
        return [tuple(row) for row in connection.execute(query)]


def test_signals_stored_before_keep_their_counts_and_have_no_authors(
    engine_at_0021: Engine,
) -> None:
    upgrade_to_head(engine_at_0021)
    assert _rows(engine_at_0021, "arxiv_id, upvotes, authors") == [("2510.25602", 12, None)]
    command.downgrade(alembic_config(engine_at_0021), "0021")
    assert _rows(engine_at_0021, "arxiv_id, upvotes") == [("2510.25602", 12)]
