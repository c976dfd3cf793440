"""Migration 0016 on a database that already holds a sent delivery."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Engine, text

from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_holding
from tests.migrations.test_sign_in_proof import BEFORE_0015

CREATED = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
A_DELIVERY = (
    "INSERT INTO deliveries (subscriber_id, period, edition_date, status, attempts, message_id, "
    "item_count, created_at) SELECT id, 'day', '2026-03-02', 'sent', 1, '<a@paperboy.test>', 3, "
    ":created FROM subscribers"
)


@pytest.fixture
def engine_at_0015(tmp_path: Path) -> Iterator[Engine]:
    values = {"created": CREATED}
    with database_holding(
        "0015", tmp_path, (BEFORE_0015[0], values), (A_DELIVERY, values)
    ) as engine:
        yield engine


def test_a_delivery_made_before_is_kept_and_not_in_flight(engine_at_0015: Engine) -> None:
    upgrade_to_head(engine_at_0015)
    with engine_at_0015.connect() as connection:
        row = connection.execute(
            text("SELECT status, message_id, sending_since FROM deliveries")
        ).one()
    assert tuple(row) == ("sent", "<a@paperboy.test>", None)


def test_the_downgrade_makes_a_delivery_in_flight_pending_again(engine_at_0015: Engine) -> None:
    upgrade_to_head(engine_at_0015)
    with engine_at_0015.begin() as connection:
        connection.execute(
            text("UPDATE deliveries SET status = 'sending', sending_since = :at"),
            {"at": CREATED},
        )
    command.downgrade(alembic_config(engine_at_0015), "0015")
    with engine_at_0015.connect() as connection:
        result = connection.execute(text("SELECT * FROM deliveries"))
        columns = result.keys()
        assert [row.status for row in result] == ["pending"]
    assert "sending_since" not in columns
