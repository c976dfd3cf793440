"""Migration 0026: every name becomes one person, and no claim is lost."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Connection, Engine, text

from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_at
from tests.migrations.test_subscriber_identity import SUBSCRIBER_COLUMNS

CREATED = datetime(2025, 12, 1, tzinfo=UTC)
# Paper, then its authors (key, name as written) by position; "zhe-qu" twice in one paper.
PAPERS = {
    "2501.00001": [("zhe-qu", "Zhe Qu"), ("ana-lima", "Ana Lima")],
    "2501.00002": [("zhe-qu", "Zhe Qu"), ("zhe-qu", "Z. Qu")],
    "2501.00003": [("ana-lima", "Ana Lima")],
}


@pytest.fixture
def engine_at_0025(tmp_path: Path) -> Iterator[Engine]:
    with database_at("0025", tmp_path) as engine:
        with engine.begin() as connection:
            _fill(connection)
        yield engine


def _fill(connection: Connection) -> None:
    for key, name in (("zhe-qu", "Zhe Qu"), ("ana-lima", "Ana Lima"), ("no-papers", "N P")):
        connection.execute(
            text("INSERT INTO authors (key, name) VALUES (:k, :n)"), {"k": key, "n": name}
        )
    for paper, authors in PAPERS.items():
        connection.execute(
            text(
                "INSERT INTO papers (arxiv_id, title, abstract, content_hash) "
                "VALUES (:paper, 'A title', 'An abstract.', 'x')"
            ),
            {"paper": paper},
        )
        for position, (key, name) in enumerate(authors):
            connection.execute(
                text(
                    "INSERT INTO paper_authors (arxiv_id, position, author_key, name) "
                    "VALUES (:paper, :position, :key, :name)"
                ),
                {"paper": paper, "position": position, "key": key, "name": name},
            )
    for email, claimed in (("q@x.org", "zhe-qu"), ("n@x.org", "no-papers"), ("r@x.org", None)):
        _subscriber(connection, email, claimed)


def _subscriber(connection: Connection, email: str, claimed: str | None) -> None:
    connection.execute(
        text(
            f"INSERT INTO subscribers ({SUBSCRIBER_COLUMNS}, email_key, link_key, "
            "claimed_author) VALUES (:email, 'active', '[]', '', '', '[]', '[]', "
            "'[\"zhe-qu\"]', '[]', 'daily', 0, 7, 'UTC', 10, false, 0, :created, "
            ":email, 'k', :claimed)"
        ),
        {"email": email, "created": CREATED, "claimed": claimed},
    )


def _rows(engine: Engine, sql: str) -> list[tuple[Any, ...]]:
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(text(sql))]


def test_every_name_is_one_person_holding_each_of_its_papers_once(engine_at_0025: Engine) -> None:
    upgrade_to_head(engine_at_0025)
    people = dict(_rows(engine_at_0025, "SELECT author_key, id FROM people"))
    assert sorted(people) == ["ana-lima", "no-papers", "zhe-qu"]
    assert sorted(
        _rows(engine_at_0025, "SELECT arxiv_id, author_key, person_id FROM paper_people")
    ) == [
        ("2501.00001", "ana-lima", people["ana-lima"]),
        ("2501.00001", "zhe-qu", people["zhe-qu"]),
        ("2501.00002", "zhe-qu", people["zhe-qu"]),
        ("2501.00003", "ana-lima", people["ana-lima"]),
    ]
    assert _rows(engine_at_0025, "SELECT count(*) FROM people WHERE hidden OR moved_to > 0") == [
        (0,)
    ]


def test_every_follow_of_a_name_also_follows_its_person_and_stays(engine_at_0025: Engine) -> None:
    upgrade_to_head(engine_at_0025)
    people = dict(_rows(engine_at_0025, "SELECT author_key, id FROM people"))
    follows = _rows(
        engine_at_0025, "SELECT followed_authors, followed_people FROM subscribers ORDER BY email"
    )
    assert [(_json(names), _json(ids)) for names, ids in follows] == [
        (["zhe-qu"], [people["zhe-qu"]])
    ] * 3


def _json(value: object) -> object:
    """A JSON column as read back: SQLite gives text, PostgreSQL the value."""
    return json.loads(value) if isinstance(value, str) else value


def test_every_claim_of_a_name_becomes_a_claim_of_its_person(
    engine_at_0025: Engine, later_claimant: str | None = None
) -> None:
    upgrade_to_head(engine_at_0025)
    people = dict(_rows(engine_at_0025, "SELECT author_key, id FROM people"))
    claims = _rows(
        engine_at_0025,
        "SELECT email, claimed_author, claimed_person, followed_authors "
        "FROM subscribers ORDER BY email",
    )
    # Of two claimants of one name (a later reader may have claimed it too: claims of a name
    # were not exclusive), the earlier subscriber gets its person; the later keeps the name.
    later = [(later_claimant, "zhe-qu", None)] if later_claimant else []
    assert [row[:3] for row in claims] == [
        *later,
        ("n@x.org", "no-papers", people["no-papers"]),
        ("q@x.org", "zhe-qu", people["zhe-qu"]),
        ("r@x.org", None, None),
    ]
    assert all("zhe-qu" in str(row[3]) for row in claims)


def test_two_claims_of_one_name_leave_its_person_one_claimant(engine_at_0025: Engine) -> None:
    with engine_at_0025.begin() as connection:
        _subscriber(connection, "a@x.org", "zhe-qu")
    test_every_claim_of_a_name_becomes_a_claim_of_its_person(engine_at_0025, "a@x.org")


def test_going_back_keeps_the_claims_of_names_and_subscriber_ids(engine_at_0025: Engine) -> None:
    before = _rows(engine_at_0025, "SELECT id, claimed_author FROM subscribers ORDER BY id")
    upgrade_to_head(engine_at_0025)
    command.downgrade(alembic_config(engine_at_0025), "0025")
    assert _rows(engine_at_0025, "SELECT id, claimed_author FROM subscribers ORDER BY id") == before
    with engine_at_0025.connect() as connection:
        columns = connection.execute(text("SELECT * FROM subscribers")).keys()
    assert "claimed_person" not in columns
