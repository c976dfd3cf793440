"""The migration that keeps Hugging Face's summary, discussion and thumbnail, on a database that
already holds signals: they keep their counts, gain empty fields, and lose nothing going back."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Engine, text

from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_holding, rows
from tests.migrations.test_hf_authors import A_SIGNAL

BEFORE = "0033"


@pytest.fixture
def engine_before(tmp_path: Path) -> Iterator[Engine]:
    with database_holding(BEFORE, tmp_path, A_SIGNAL) as engine:
        yield engine


def test_stored_signals_gain_empty_fields_and_a_thumbnail_can_be_kept(
    engine_before: Engine,
) -> None:
    upgrade_to_head(engine_before)
    columns = "arxiv_id, upvotes, ai_summary, discussion_id, thumbnail_url"
    assert rows(engine_before, f"SELECT {columns} FROM hf_daily_papers") == [
        ("2510.25602", 12, None, None, None)
    ]
    with engine_before.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO hf_thumbnails (arxiv_id, source_url, digest, image, fetched_at) "
                "VALUES ('2510.25602', 'https://example.org/t.png', :digest, :image, :now)"
            ),
            {"digest": "0" * 64, "image": b"RIFF", "now": datetime.now(UTC)},
        )
    command.downgrade(alembic_config(engine_before), BEFORE)
    assert rows(engine_before, "SELECT arxiv_id, upvotes FROM hf_daily_papers") == [
        ("2510.25602", 12)
    ]
