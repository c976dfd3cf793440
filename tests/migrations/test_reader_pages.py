"""Migration 0013 on a database that already holds a subscriber and a paper."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError

from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_at
from tests.migrations.test_subscriber_identity import SUBSCRIBER_COLUMNS

CREATED = datetime(2025, 12, 1, tzinfo=UTC)
PAPER = "2512.16698"


@pytest.fixture
def engine_at_0012(tmp_path: Path) -> Iterator[Engine]:
    with database_at("0012", tmp_path) as engine:
        with engine.begin() as connection:
            connection.execute(
                text(
                    f"INSERT INTO subscribers ({SUBSCRIBER_COLUMNS}, email_key, link_key) VALUES "
                    "('r@x.org', 'active', '[]', '', '', '[]', '[]', '[]', '[]', 'daily', 0, 7, "
                    "'UTC', 10, false, 0, :created, 'r@x.org', 'k')"
                ),
                {"created": CREATED},
            )
            connection.execute(
                text(
                    "INSERT INTO papers (arxiv_id, title, abstract, content_hash) "
                    "VALUES (:paper, 'A title', 'An abstract.', 'x')"
                ),
                {"paper": PAPER},
            )
        yield engine


def _scalar(engine: Engine, sql: str) -> object:
    with engine.connect() as connection:
        return connection.execute(text(sql)).scalar_one()


def test_a_subscriber_kept_has_no_claim_no_feed_key_and_can_save_until_deleted(
    engine_at_0012: Engine,
) -> None:
    upgrade_to_head(engine_at_0012)
    row = "SELECT claimed_author, feed_key FROM subscribers"
    with engine_at_0012.connect() as connection:
        assert tuple(connection.execute(text(row)).one()) == (None, None)
    with engine_at_0012.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO saved_papers (subscriber_id, arxiv_id, saved_at) "
                "SELECT id, :paper, :at FROM subscribers"
            ),
            {"paper": PAPER, "at": CREATED},
        )
    assert _scalar(engine_at_0012, "SELECT count(*) FROM saved_papers") == 1
    with engine_at_0012.begin() as connection:
        connection.execute(text("DELETE FROM subscribers"))
    assert _scalar(engine_at_0012, "SELECT count(*) FROM saved_papers") == 0


def test_a_paper_is_saved_once_per_reader(engine_at_0012: Engine) -> None:
    upgrade_to_head(engine_at_0012)
    insert = text(
        "INSERT INTO saved_papers (subscriber_id, arxiv_id, saved_at) "
        "SELECT id, :paper, :at FROM subscribers"
    )
    with engine_at_0012.begin() as connection:
        connection.execute(insert, {"paper": PAPER, "at": CREATED})
    with pytest.raises(IntegrityError), engine_at_0012.begin() as connection:
        connection.execute(insert, {"paper": PAPER, "at": CREATED})


def test_the_downgrade_drops_the_reading_list_and_keeps_the_subscriber(
    engine_at_0012: Engine,
) -> None:
    upgrade_to_head(engine_at_0012)
    command.downgrade(alembic_config(engine_at_0012), "0012")
    assert _scalar(engine_at_0012, "SELECT email_key FROM subscribers") == "r@x.org"
    with engine_at_0012.connect() as connection:
        columns = connection.execute(text("SELECT * FROM subscribers")).keys()
    assert "feed_key" not in columns and "claimed_author" not in columns
