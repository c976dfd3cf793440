"""Migration 0022 on a database that already holds Hugging Face signals: they keep their
counts and have no authors until read again (the live history then reads their papers')."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Engine

from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_holding, rows

# A day's signals of one paper, as stored before the migrations under test.
A_SIGNAL = (
    "INSERT INTO hf_daily_papers (daily_date, arxiv_id, upvotes, ai_keywords, fetched_at) "
    "VALUES (:day, '2510.25602', 12, '[]', :day)",
    {"day": date(2025, 11, 3)},
)


@pytest.fixture
def engine_at_0021(tmp_path: Path) -> Iterator[Engine]:
    with database_holding("0021", tmp_path, A_SIGNAL) as engine:
        yield engine


def _rows(engine: Engine, columns: str) -> list[tuple[object, ...]]:
    return rows(engine, f"SELECT {columns} FROM hf_daily_papers")


def test_signals_stored_before_keep_their_counts_and_have_no_authors(
    engine_at_0021: Engine,
) -> None:
    upgrade_to_head(engine_at_0021)
    assert _rows(engine_at_0021, "arxiv_id, upvotes, authors") == [("2510.25602", 12, None)]
    command.downgrade(alembic_config(engine_at_0021), "0021")
    assert _rows(engine_at_0021, "arxiv_id, upvotes") == [("2510.25602", 12)]
