"""The migration that keeps each person's paper count: existing people are counted as their
pages list them (a paper whose author list dropped the name is not theirs, a moved person holds
none), ids stay never reused, and going back drops the column alone. The revisions are read
from the migration itself, which is renumbered when branches merge."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType

import pytest
from alembic import command
from sqlalchemy import Engine, inspect, text

from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_holding, rows

VERSIONS = Path(__file__).resolve().parents[2] / "migrations" / "versions"
CREATED = "2026-12-01 09:00:00+00:00"


def _migration() -> ModuleType:
    [path] = VERSIONS.glob("*_person_paper_counts.py")
    spec = importlib.util.spec_from_file_location("person_paper_counts", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BEFORE = str(_migration().down_revision)
PAPERS = ("2501.00001", "2501.00002", "2501.00003")
# Person 7 holds all three papers, but the third no longer lists the name; person 8 moved.
STORED: list[tuple[str, Mapping[str, object]]] = [
    ("INSERT INTO authors (key, name) VALUES ('zhe-qu', 'Zhe Qu')", {}),
    *(
        (
            "INSERT INTO papers (arxiv_id, title, abstract, content_hash) "
            "VALUES (:paper, 'A title', 'An abstract.', 'x')",
            {"paper": paper},
        )
        for paper in PAPERS
    ),
    *(
        (
            "INSERT INTO paper_authors (arxiv_id, position, author_key, name) "
            "VALUES (:paper, 0, 'zhe-qu', 'Zhe Qu')",
            {"paper": paper},
        )
        for paper in PAPERS[:2]
    ),
    *(
        (
            "INSERT INTO people (id, author_key, moved_to, hidden, created_at) "
            "VALUES (:id, 'zhe-qu', :moved, false, :created)",
            {"id": person, "moved": moved, "created": CREATED},
        )
        for person, moved in ((7, None), (8, 7))
    ),
    *(
        (
            "INSERT INTO paper_people (arxiv_id, author_key, person_id) "
            "VALUES (:paper, 'zhe-qu', 7)",
            {"paper": paper},
        )
        for paper in PAPERS
    ),
]


@pytest.fixture
def engine_before(tmp_path: Path) -> Iterator[Engine]:
    with database_holding(BEFORE, tmp_path, *STORED) as engine:
        yield engine


def test_each_person_is_counted_as_their_page_lists_them(engine_before: Engine) -> None:
    upgrade_to_head(engine_before)
    counts = rows(engine_before, "SELECT id, paper_count FROM people ORDER BY id")
    assert counts == [(7, 2), (8, 0)]
    if engine_before.dialect.name != "sqlite":
        return  # a sequence never reuses ids; SQLite's rebuilt table must keep that promise
    with engine_before.begin() as connection:
        connection.execute(text("DELETE FROM people WHERE id = 8"))
        connection.execute(
            text(
                "INSERT INTO people (author_key, hidden, created_at) "
                "VALUES ('zhe-qu', false, :created)"
            ),
            {"created": CREATED},
        )
    assert rows(engine_before, "SELECT max(id) FROM people") == [(9,)]


def test_the_downgrade_drops_the_count_and_keeps_the_people(engine_before: Engine) -> None:
    upgrade_to_head(engine_before)
    command.downgrade(alembic_config(engine_before), BEFORE)
    columns = {column["name"] for column in inspect(engine_before).get_columns("people")}
    assert "paper_count" not in columns and "moved_to" in columns
    assert rows(engine_before, "SELECT id FROM people ORDER BY id") == [(7,), (8,)]
