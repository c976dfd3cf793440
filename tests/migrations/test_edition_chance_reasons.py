"""Migration 0011 on a database that already holds a published edition."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Engine, text

from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_at

ROWS = [
    "INSERT INTO papers (arxiv_id, title, abstract, content_hash) "
    "VALUES ('2512.16698', 'A title', 'An abstract.', 'x')",
    "INSERT INTO editions (id, period, edition_date, version, scorer, scorer_version, "
    "algorithm_version, diversity_rule, pool_size, published_at) "
    "VALUES (1, 'day', :day, 1, 'trending', '1', 'editions-1', 'none', 1, :published)",
    "INSERT INTO edition_items (edition_id, position, arxiv_id, score, components) "
    "VALUES (1, 1, '2512.16698', -1.5, '{\"prior\": -1.5}')",
]


@pytest.fixture
def engine_at_0010(tmp_path: Path) -> Iterator[Engine]:
    with database_at("0010", tmp_path) as engine:
        with engine.begin() as connection:
            values = {"day": date(2025, 12, 19), "published": datetime(2025, 12, 19, tzinfo=UTC)}
            for row in ROWS:
                connection.execute(text(row), values)
        yield engine


def _items(engine: Engine, columns: str) -> list[tuple[object, ...]]:
    with engine.connect() as connection:
        return [
            tuple(row) for row in connection.execute(text(f"SELECT {columns} FROM edition_items"))
        ]


def test_items_published_before_keep_their_score_and_have_no_chance_or_reasons(
    engine_at_0010: Engine,
) -> None:
    upgrade_to_head(engine_at_0010)
    assert _items(engine_at_0010, "arxiv_id, score, components, chance, reasons") == [
        ("2512.16698", -1.5, '{"prior": -1.5}', None, None)
    ]
    command.downgrade(alembic_config(engine_at_0010), "0010")
    assert _items(engine_at_0010, "arxiv_id, score, components") == [
        ("2512.16698", -1.5, '{"prior": -1.5}')
    ]
