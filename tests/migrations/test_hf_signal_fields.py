"""Migration 0010 on a database that already holds Hugging Face signals."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Engine, text

from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_at

NEW_COLUMNS = "project_page, submitted_by, organization_name, organization_fullname"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    with database_at(None, tmp_path) as engine:
        yield engine


def _signals(engine: Engine, columns: str) -> list[tuple[object, ...]]:
    query = text(f"SELECT {columns} FROM hf_daily_papers")
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(query)]


def test_signals_stored_before_keep_their_counts_and_lack_the_new_fields(engine: Engine) -> None:
    command.upgrade(alembic_config(engine), "0009")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO hf_daily_papers (daily_date, arxiv_id, upvotes, ai_keywords, "
                "fetched_at) VALUES (:day, '2510.25602', 12, '[]', :day)"
            ),
            {"day": date(2025, 11, 3)},
        )
    upgrade_to_head(engine)
    assert _signals(engine, f"arxiv_id, upvotes, {NEW_COLUMNS}") == [
        ("2510.25602", 12, None, None, None, None)
    ]
    command.downgrade(alembic_config(engine), "0009")
    assert _signals(engine, "arxiv_id, upvotes") == [("2510.25602", 12)]
