"""Migration 0008 on a database that already holds subscribers, deliveries and votes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from app.core.schema import upgrade_to_head
from tests.migrations.conftest import database_at

CREATED = datetime(2026, 1, 5, tzinfo=UTC)
SUBSCRIBER_COLUMNS = (
    "email, status, categories, interests, exclusions, followed_topics, muted_topics, "
    "followed_authors, muted_authors, frequency, weekday, delivery_hour, time_zone, max_items, "
    "send_empty, failure_count, created_at"
)


@pytest.fixture
def engine_at_0007(tmp_path: Path) -> Iterator[Engine]:
    with database_at("0007", tmp_path) as engine:
        yield engine


def _add_subscriber(engine: Engine, email: str, status: str, *, keyed: bool = False) -> int:
    """A row as the schema before (or, ``keyed``, after) the migration takes it."""
    columns = SUBSCRIBER_COLUMNS
    values = f"'{email}', '{status}', '[]', '', '', '[]', '[]', '[]', '[]', 'daily', 0, 7, 'UTC', "
    values += "10, false, 0, :created"
    if keyed:
        columns += ", email_key, link_key"
        values += f", '{email.lower()}', 'k'"
    with engine.begin() as connection:
        connection.execute(
            text(f"INSERT INTO subscribers ({columns}) VALUES ({values})"),
            {"created": CREATED},
        )
        found = connection.execute(
            text("SELECT id FROM subscribers WHERE email = :email"), {"email": email}
        ).scalar_one()
        connection.execute(
            text(
                "INSERT INTO deliveries (subscriber_id, period, edition_date, status, attempts, "
                "item_count, created_at) VALUES (:id, 'day', :day, 'sent', 1, 3, :created)"
            ),
            {"id": found, "day": date(2026, 1, 6), "created": CREATED},
        )
        return int(found)


def _rows(engine: Engine, sql: str) -> list[tuple[object, ...]]:
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(text(sql))]


def test_rows_of_one_mailbox_are_merged_and_the_confirmed_one_keeps_its_history(
    engine_at_0007: Engine,
) -> None:
    pending = _add_subscriber(engine_at_0007, "bob@example.org", "pending")
    active = _add_subscriber(engine_at_0007, "Bob@example.org", "active")
    other = _add_subscriber(engine_at_0007, "ada@example.org", "active")
    upgrade_to_head(engine_at_0007)
    kept = _rows(engine_at_0007, "SELECT id, email, email_key FROM subscribers ORDER BY id")
    assert kept == [
        (active, "Bob@example.org", "bob@example.org"),
        (other, "ada@example.org", "ada@example.org"),
    ]
    deliveries = _rows(engine_at_0007, "SELECT subscriber_id FROM deliveries ORDER BY 1")
    assert deliveries == [(active,), (other,)] and pending not in {d[0] for d in deliveries}
    keys = _rows(engine_at_0007, "SELECT link_key FROM subscribers")
    assert len({key for (key,) in keys}) == 2 and all(len(str(k)) == 32 for (k,) in keys)


def test_ids_are_never_reused_after_the_migration(engine_at_0007: Engine) -> None:
    _add_subscriber(engine_at_0007, "ada@example.org", "active")
    last = _add_subscriber(engine_at_0007, "bob@example.org", "active")
    upgrade_to_head(engine_at_0007)
    with engine_at_0007.begin() as connection:
        connection.execute(text("DELETE FROM subscribers WHERE id = :id"), {"id": last})
    assert _add_subscriber(engine_at_0007, "carol@example.org", "pending", keyed=True) > last
