"""Migration 0029 on a database that holds a subscriber: the outbox is added beside it, and
going back drops the outbox alone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import IntegrityError

from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_holding
from tests.migrations.test_sign_in_proof import BEFORE_0015

CREATED = datetime(2026, 12, 5, 21, 0, tzinfo=UTC)
A_MAIL = (
    "INSERT INTO mail_outbox (kind, sender, recipient, message, ticket, created_at, attempts, "
    "next_attempt_at) VALUES ('alert', 'a@paperboy.test', 'ops@paperboy.test', :message, "
    ":ticket, :at, 0, :at)"
)


@pytest.fixture
def engine_at_0028(tmp_path: Path) -> Iterator[Engine]:
    with database_holding("0028", tmp_path, (BEFORE_0015[0], {"created": CREATED})) as engine:
        yield engine


def test_the_outbox_is_added_and_keeps_what_was_stored(engine_at_0028: Engine) -> None:
    upgrade_to_head(engine_at_0028)
    with engine_at_0028.begin() as connection:
        connection.execute(
            text(A_MAIL), {"message": b"Subject: x\r\n\r\nx", "ticket": "t", "at": CREATED}
        )
        assert connection.execute(text("SELECT count(*) FROM subscribers")).scalar() == 1
        stored = connection.execute(text("SELECT message, attempts FROM mail_outbox")).one()
    assert (bytes(stored.message), stored.attempts) == (b"Subject: x\r\n\r\nx", 0)


def test_a_ticket_is_unique(engine_at_0028: Engine) -> None:
    upgrade_to_head(engine_at_0028)
    values = {"message": b"x", "ticket": "same", "at": CREATED}
    with pytest.raises(IntegrityError), engine_at_0028.begin() as connection:
        connection.execute(text(A_MAIL), values)
        connection.execute(text(A_MAIL), values)


def test_the_downgrade_drops_the_outbox_and_nothing_else(engine_at_0028: Engine) -> None:
    upgrade_to_head(engine_at_0028)
    command.downgrade(alembic_config(engine_at_0028), "0028")
    assert "mail_outbox" not in inspect(engine_at_0028).get_table_names()
    with engine_at_0028.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM subscribers")).scalar() == 1
