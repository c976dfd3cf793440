"""Migration 0017 on a database that already holds a spent sign-in link."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Engine, text

from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_at

USED = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
A_SPENT_LINK = (
    "INSERT INTO used_tokens (token_id, purpose, used_at) VALUES ('0123abcd', 'signin', :used)"
)


@pytest.fixture
def engine_at_0016(tmp_path: Path) -> Iterator[Engine]:
    with database_at("0016", tmp_path) as engine:
        with engine.begin() as connection:
            connection.execute(text(A_SPENT_LINK), {"used": USED})
        yield engine


def test_a_link_spent_before_is_kept_and_tied_to_no_browser(engine_at_0016: Engine) -> None:
    upgrade_to_head(engine_at_0016)
    with engine_at_0016.connect() as connection:
        row = connection.execute(
            text("SELECT token_id, purpose, nonce_hash FROM used_tokens")
        ).one()
    assert tuple(row) == ("0123abcd", "signin", None)


def test_the_downgrade_keeps_the_spent_links_and_drops_their_browser(
    engine_at_0016: Engine,
) -> None:
    upgrade_to_head(engine_at_0016)
    with engine_at_0016.begin() as connection:
        connection.execute(text("UPDATE used_tokens SET nonce_hash = :hash"), {"hash": "ab" * 32})
    command.downgrade(alembic_config(engine_at_0016), "0016")
    with engine_at_0016.connect() as connection:
        result = connection.execute(text("SELECT * FROM used_tokens"))
        columns = result.keys()
        assert [row.token_id for row in result] == ["0123abcd"]
    assert "nonce_hash" not in columns
