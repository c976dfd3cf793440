"""Migration 0015 on a database that already holds a sign-in key and a pending sign-up."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Engine, text

from accounts import reader
from accounts.subscriptions import purge_unconfirmed
from app.core.config import get_settings
from app.core.db import make_session_factory, session_scope
from app.core.models import SubscriberStatus
from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_at
from tests.migrations.test_subscriber_identity import SUBSCRIBER_COLUMNS

CREATED = datetime(2025, 12, 1, tzinfo=UTC)
# A reader who asked a sign-in link (used or not: 0014 cannot say) and a week-old sign-up.
BEFORE_0015 = (
    f"INSERT INTO subscribers ({SUBSCRIBER_COLUMNS}, email_key, link_key) VALUES "
    "('r@x.org', 'pending', '[]', '', '', '[]', '[]', '[]', '[]', 'daily', 0, 7, "
    "'UTC', 10, false, 0, :created, 'r@x.org', 'k')",
    "INSERT INTO sign_in_keys (email_key, key, created_at) VALUES ('r@x.org', 'k', :created)",
)


@pytest.fixture
def engine_at_0014(tmp_path: Path) -> Iterator[Engine]:
    with database_at("0014", tmp_path) as engine:
        with engine.begin() as connection:
            for statement in BEFORE_0015:
                connection.execute(text(statement), {"created": CREATED})
        yield engine


def test_a_key_made_before_counts_as_signed_in_so_the_purge_keeps_the_reader(
    engine_at_0014: Engine, tmp_path: Path
) -> None:
    upgrade_to_head(engine_at_0014)
    with engine_at_0014.connect() as connection:
        signed_in = connection.execute(text("SELECT signed_in_at FROM sign_in_keys")).scalar_one()
    assert signed_in is not None
    settings = get_settings(data_dir=tmp_path)  # the purge reads its age only
    with session_scope(make_session_factory(engine_at_0014)) as session:
        assert purge_unconfirmed(session, settings, CREATED + timedelta(days=30)) == 0
        kept = reader.find(session, "r@x.org")
        assert kept is not None and kept.status == SubscriberStatus.WEB


def test_the_downgrade_drops_the_proof_and_keeps_the_key(engine_at_0014: Engine) -> None:
    upgrade_to_head(engine_at_0014)
    command.downgrade(alembic_config(engine_at_0014), "0014")
    with engine_at_0014.connect() as connection:
        result = connection.execute(text("SELECT * FROM sign_in_keys"))
        columns = result.keys()
        assert [row.email_key for row in result] == ["r@x.org"]
    assert "signed_in_at" not in columns
