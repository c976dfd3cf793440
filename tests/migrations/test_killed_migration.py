"""``kill -9`` during ``paperboy migrate``: the next run completes, and the schema is a clean
migration's. The kill lands at chosen statements (tests/migrations/killed_migrate.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Engine, event, inspect, text
from sqlalchemy.engine.interfaces import ReflectedIndex
from sqlalchemy.exc import IntegrityError

from app.cli.main import main
from app.core.config import get_settings
from app.core.schema import current_revision, migrate
from tests.conftest import PROJECT_ROOT
from tests.migrations.conftest import database_at

# Where in the migration's statements the process is killed, as a share of them all.
KILL_POINTS = (0.1, 0.3, 0.5, 0.7, 0.9)


@dataclass(frozen=True)
class CleanMigration:
    schema: dict[str, object]
    statements: int


def schema_of(engine: Engine) -> dict[str, object]:
    """Every table's columns, keys, indexes and unique constraints, and the revision."""
    found = inspect(engine)
    tables = {
        name: (
            [
                (c["name"], str(c["type"]), c["nullable"], c.get("default"))
                for c in found.get_columns(name)
            ],
            found.get_pk_constraint(name),
            sorted(map(repr, found.get_foreign_keys(name))),
            sorted(map(_index_text, found.get_indexes(name))),
            sorted(map(repr, found.get_unique_constraints(name))),
        )
        for name in sorted(found.get_table_names())
    }
    return {"tables": tables, "revision": current_revision(engine)}


def _index_text(index: ReflectedIndex) -> str:
    """The index as text: a partial index's condition (a clause object) by its SQL."""
    options = {key: str(value) for key, value in index.get("dialect_options", {}).items()}
    return repr({**index, "dialect_options": options})


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> CleanMigration:
    """A migration that nothing interrupted: its schema, and how many statements it sends."""
    with database_at(None, tmp_path_factory.mktemp("clean")) as engine:
        sent: list[str] = []
        event.listen(engine, "before_cursor_execute", lambda *args: sent.append(args[2]))
        migrate(engine)
        statements = len(sent)
        return CleanMigration(schema_of(engine), statements)


def migrate_killed_before(statement: int, url: str, data_dir: Path) -> int:
    """``paperboy migrate`` killed as it sends its ``statement``-th statement; its exit status."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    environment = kept | {"PAPERBOY_DATABASE_URL": url, "PAPERBOY_DATA_DIR": str(data_dir)}
    killed = subprocess.run(
        [sys.executable, "-m", "tests.migrations.killed_migrate", str(statement)],
        cwd=PROJECT_ROOT,
        env=environment,
        capture_output=True,
        timeout=60,
        check=False,
    )
    return killed.returncode


@pytest.mark.parametrize("share", KILL_POINTS)
def test_a_migration_killed_part_way_completes_when_run_again(
    share: float, clean: CleanMigration, tmp_path: Path
) -> None:
    with database_at(None, tmp_path) as engine:
        url = engine.url.render_as_string(hide_password=False)
        statement = max(1, round(clean.statements * share))
        assert migrate_killed_before(statement, url, tmp_path) == -signal.SIGKILL
        assert main(["migrate"], get_settings(database_url=url, data_dir=tmp_path)) == 0
        assert schema_of(engine) == clean.schema


def test_connections_after_a_migration_still_enforce_foreign_keys(tmp_path: Path) -> None:
    # SQLite migrates with foreign keys off (migrations/env.py): the connection it used is
    # dropped, so none with them off goes back to the pool.
    with database_at(None, tmp_path) as engine:
        migrate(engine)
        orphan = "INSERT INTO paper_categories (arxiv_id, category, position) VALUES ('x', 'y', 0)"
        with pytest.raises(IntegrityError), engine.begin() as connection:
            connection.execute(text(orphan))
