"""Migration 0012 on a database whose authors were stored with TeX accents in their names."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Connection, Engine, text

from app.core.names import author_key
from app.core.schema import alembic_config, upgrade_to_head
from tests.migrations.conftest import database_at
from tests.migrations.test_subscriber_identity import SUBSCRIBER_COLUMNS

# How ingest stored them before 0012: the name as written, keyed with TeX's letters as words.
OLD_AUTHORS = {
    "daniel-p-erez-herrera": "Daniel P\\\\'erez Herrera",
    "mikkel-o-bro": "Mikkel {\\O}bro",
    "daniel-perez-herrera": "Daniel Pérez Herrera",
    "ann-lee": "Ann Lee",
    "jos-e-garc-i-a": "Jos\\'e Garc\\'{\\i}a",  # no link uses it: only a follower
}
OLD_LINKS = [  # (paper, position, key, name)
    ("2310.16106", 0, "daniel-p-erez-herrera", "Daniel P\\\\'erez Herrera"),
    ("2310.16106", 1, "ann-lee", "Ann Lee"),
    ("2310.16107", 0, "daniel-perez-herrera", "Daniel Pérez Herrera"),
    ("2310.16107", 1, "mikkel-o-bro", "Mikkel {\\O}bro"),
    # One paper listing both spellings of one person: two positions, one author.
    ("2310.16108", 0, "daniel-perez-herrera", "Daniel Pérez Herrera"),
    ("2310.16108", 1, "daniel-p-erez-herrera", "Daniel P\\\\'erez Herrera"),
]


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    with database_at("0011", tmp_path) as engine:
        yield engine


def _store(
    connection: Connection, authors: dict[str, str], links: list[tuple[str, int, str, str]]
) -> None:
    for arxiv_id in sorted({link[0] for link in links}):
        connection.execute(
            text(
                "INSERT INTO papers (arxiv_id, title, abstract, content_hash) "
                "VALUES (:id, 'A title', 'An abstract.', 'h')"
            ),
            {"id": arxiv_id},
        )
    for key, name in authors.items():
        connection.execute(
            text("INSERT INTO authors (key, name) VALUES (:k, :n)"), {"k": key, "n": name}
        )
    for arxiv_id, position, key, name in links:
        connection.execute(
            text(
                "INSERT INTO paper_authors (arxiv_id, position, author_key, name) "
                "VALUES (:id, :at, :key, :name)"
            ),
            {"id": arxiv_id, "at": position, "key": key, "name": name},
        )


def _follower(connection: Connection, followed: list[str], muted: list[str]) -> None:
    connection.execute(
        text(
            f"INSERT INTO subscribers ({SUBSCRIBER_COLUMNS}, email_key, link_key) VALUES "
            "('r@x.org', 'active', '[]', '', '', '[]', '[]', :followed, :muted, 'daily', 0, 7, "
            "'UTC', 10, false, 0, :created, 'r@x.org', 'k')"
        ),
        {
            "followed": json.dumps(followed),
            "muted": json.dumps(muted),
            "created": datetime(2026, 1, 5, tzinfo=UTC),
        },
    )


def _rows(engine: Engine, query: str) -> list[tuple[object, ...]]:
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(text(query))]


def test_tex_names_are_decoded_and_their_authors_merged_into_the_unicode_key(
    engine: Engine,
) -> None:
    with engine.begin() as connection:
        _store(connection, OLD_AUTHORS, OLD_LINKS)
        _follower(
            connection,
            ["jos-e-garc-i-a", "daniel-p-erez-herrera", "daniel-perez-herrera"],
            ["mikkel-o-bro"],
        )
    upgrade_to_head(engine)
    assert _rows(engine, "SELECT key, name FROM authors ORDER BY key") == [
        ("ann-lee", "Ann Lee"),
        ("daniel-perez-herrera", "Daniel Pérez Herrera"),
        ("jose-garcia", "José García"),
        ("mikkel-obro", "Mikkel Øbro"),
    ]
    assert _rows(
        engine, "SELECT arxiv_id, position, author_key, name FROM paper_authors ORDER BY 1, 2"
    ) == [
        ("2310.16106", 0, "daniel-perez-herrera", "Daniel Pérez Herrera"),
        ("2310.16106", 1, "ann-lee", "Ann Lee"),
        ("2310.16107", 0, "daniel-perez-herrera", "Daniel Pérez Herrera"),
        ("2310.16107", 1, "mikkel-obro", "Mikkel Øbro"),
        ("2310.16108", 0, "daniel-perez-herrera", "Daniel Pérez Herrera"),
        ("2310.16108", 1, "daniel-perez-herrera", "Daniel Pérez Herrera"),
    ]
    [lists] = _rows(engine, "SELECT followed_authors, muted_authors FROM subscribers")
    # PostgreSQL's driver reads JSON into lists, SQLite's gives the text.
    followed, muted = (
        value if isinstance(value, list) else json.loads(str(value)) for value in lists
    )
    assert followed == ["jose-garcia", "daniel-perez-herrera"]
    assert muted == ["mikkel-obro"]


def test_a_database_without_tex_names_is_left_as_it_was_and_the_downgrade_keeps_the_names(
    engine: Engine,
) -> None:
    with engine.begin() as connection:
        _store(connection, {"ann-lee": "Ann Lee"}, [("2310.16106", 0, "ann-lee", "Ann Lee")])
    upgrade_to_head(engine)
    command.downgrade(alembic_config(engine), "0011")
    assert _rows(engine, "SELECT key, name FROM authors") == [("ann-lee", "Ann Lee")]
    assert _rows(engine, "SELECT author_key, name FROM paper_authors") == [("ann-lee", "Ann Lee")]


_SPELLINGS = {"é": ["\\'e", "{\\'e}", "\\'{e}"], "ø": ["{\\o}", "\\o{}"], "š": ["\\v{s}"]}
_NAMES = st.lists(
    st.text(st.sampled_from([*"abdeo ", *_SPELLINGS]), min_size=1, max_size=6).filter(author_key),
    min_size=1,
    max_size=6,
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(names=_NAMES, data=st.data())
def test_after_the_migration_every_link_is_keyed_as_ingest_keys_it_now(
    engine: Engine, names: list[str], data: st.DataObject
) -> None:
    """Names stored in TeX or in Unicode, keyed as ingest keyed them before: afterwards each
    link's key is its decoded name's, every key has its author row, and no position is lost."""
    written = [
        "".join(data.draw(st.sampled_from(_SPELLINGS.get(letter, [letter]))) for letter in name)
        for name in names
    ]
    links = [
        ("2401.00001", position, _key_before_0012(name), name)
        for position, name in enumerate(written)
        if _key_before_0012(name)
    ]
    # One database for every example: its downgrade changes nothing, so each starts at 0011.
    # Only 0012 re-keys links; the later migrations would only slow each example.
    command.downgrade(alembic_config(engine), "0011")
    with engine.begin() as connection:
        for table in ("paper_authors", "authors", "papers"):
            connection.execute(text(f"DELETE FROM {table}"))
        _store(connection, {key: name for _, _, key, name in links}, links)
    command.upgrade(alembic_config(engine), "0012")
    stored = _rows(engine, "SELECT position, author_key, name FROM paper_authors ORDER BY position")
    keys = {key for (key,) in _rows(engine, "SELECT key FROM authors")}
    assert [position for position, _, _ in stored] == [position for _, position, _, _ in links]
    assert all(key == author_key(str(name)) and "\\" not in str(name) for _, key, name in stored)
    assert keys == {key for _, key, _ in stored}


def _key_before_0012(name: str) -> str:
    """The key ingest gave an ASCII name before it decoded TeX: every other character a space."""
    return "-".join("".join(char.lower() if char.isalnum() else " " for char in name).split())
