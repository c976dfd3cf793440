"""The migration that adds followed organizations, on a database that holds a subscriber: the
reader keeps their row and follows none, follows are then stored, and going back drops the
column alone. The revisions are read from the migration itself, which is renumbered when
branches merge."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest
from alembic import command
from sqlalchemy import Engine, inspect, text

from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_at
from tests.migrations.test_sign_in_proof import BEFORE_0015

CREATED = datetime(2026, 12, 5, 22, 0, tzinfo=UTC)
VERSIONS = Path(__file__).resolve().parents[2] / "migrations" / "versions"


def _migration() -> ModuleType:
    [path] = VERSIONS.glob("*_followed_organizations.py")
    spec = importlib.util.spec_from_file_location("followed_organizations", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BEFORE = str(_migration().down_revision)


@pytest.fixture
def engine_before(tmp_path: Path) -> Iterator[Engine]:
    with database_at(BEFORE, tmp_path) as engine:
        with engine.begin() as connection:
            connection.execute(text(BEFORE_0015[0]), {"created": CREATED})
        yield engine


def _follows(engine: Engine) -> object:
    """The one subscriber's column as the driver gives it (text on SQLite, a list otherwise)."""
    with engine.connect() as connection:
        return connection.execute(
            text("SELECT followed_organizations FROM subscribers")
        ).scalar_one()


def test_every_reader_starts_following_no_organization_and_can_follow_one(
    engine_before: Engine,
) -> None:
    upgrade_to_head(engine_before)
    assert _follows(engine_before) in ("[]", [])
    with engine_before.begin() as connection:
        connection.execute(text("""UPDATE subscribers SET followed_organizations = '["A-Lab"]'"""))
    assert _follows(engine_before) in ('["A-Lab"]', ["A-Lab"])


def test_the_downgrade_drops_the_column_and_keeps_the_reader(engine_before: Engine) -> None:
    upgrade_to_head(engine_before)
    command.downgrade(alembic_config(engine_before), BEFORE)
    columns = {column["name"] for column in inspect(engine_before).get_columns("subscribers")}
    assert "followed_organizations" not in columns and "followed_people" in columns
    with engine_before.connect() as connection:
        assert connection.execute(text("SELECT email FROM subscribers")).scalar() == "r@x.org"
