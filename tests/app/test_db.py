import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.core.config import get_settings
from app.core.db import insert_plain_rows, make_engine, session_scope, unit_of_work
from app.core.models import Author, Base, IngestRun, SignInKey, Vote
from tests.conftest import Database


def test_sqlite_gets_wal_foreign_keys_and_a_busy_timeout(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    engine = make_engine(get_settings(data_dir=tmp_path / "nested"))
    request.addfinalizer(engine.dispose)
    with engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert connection.execute(text("PRAGMA busy_timeout")).scalar() == 30_000
        assert connection.execute(text("PRAGMA page_size")).scalar() == 16_384
    assert (tmp_path / "nested" / "paperboy.sqlite3").exists()


def test_an_existing_database_keeps_its_page_size(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)  # a database made by an earlier version, with 4 KB pages
    old.execute("PRAGMA page_size=4096")
    old.execute("CREATE TABLE kept (value TEXT)")
    old.execute("INSERT INTO kept VALUES ('still here')")
    old.commit()
    old.close()
    engine = make_engine(get_settings(database_url=f"sqlite:///{path}"))
    try:
        with engine.connect() as connection:
            assert connection.execute(text("PRAGMA page_size")).scalar() == 4096
            assert connection.execute(text("SELECT value FROM kept")).scalar() == "still here"
    finally:
        engine.dispose()


def test_a_session_scope_commits_on_success_and_rolls_back_on_error(database: Database) -> None:
    started = datetime(2026, 1, 1, tzinfo=UTC)
    with session_scope(database.sessions) as session:
        session.add(IngestRun(source="kept", status="ok", started_at=started))
    with pytest.raises(RuntimeError), session_scope(database.sessions) as session:
        session.add(IngestRun(source="lost", status="ok", started_at=started))
        session.flush()
        raise RuntimeError("the job failed")
    with session_scope(database.sessions) as session:
        assert session.scalars(select(IngestRun.source)).all() == ["kept"]


def test_timestamps_come_back_aware_in_utc_and_naive_ones_are_refused(
    database: Database,
) -> None:
    eastern = timezone(timedelta(hours=-5))
    with session_scope(database.sessions) as session:
        session.add(
            IngestRun(source="s", status="ok", started_at=datetime(2026, 1, 1, 20, tzinfo=eastern))
        )
    with session_scope(database.sessions) as session:
        started = session.scalars(select(IngestRun.started_at)).one()
    assert started == datetime(2026, 1, 2, 1, tzinfo=UTC)
    assert started.tzinfo is not None and started.utcoffset() == timedelta(0)
    with (
        pytest.raises(Exception, match="naive datetime"),
        session_scope(database.sessions) as session,
    ):
        session.add(IngestRun(source="s", status="ok", started_at=datetime(2026, 1, 1)))
        session.flush()


def test_a_plain_insert_skips_rows_whose_key_is_taken_only_when_asked(
    database: Database,
) -> None:
    authors = Base.metadata.tables[Author.__tablename__]
    columns = ("key", "name")
    with session_scope(database.sessions) as session:
        insert_plain_rows(session, authors, columns, [("ann-lee", "Ann Lee")])
        insert_plain_rows(
            session,
            authors,
            columns,
            [("ann-lee", "ANN LEE"), ("bo-chen", "Bo Chen")],
            skip_duplicates=True,
        )
    with session_scope(database.sessions) as session:
        assert session.execute(select(Author.key, Author.name).order_by(Author.key)).all() == [
            ("ann-lee", "Ann Lee"),
            ("bo-chen", "Bo Chen"),
        ]
    with pytest.raises(IntegrityError), session_scope(database.sessions) as session:
        insert_plain_rows(session, authors, columns, [("ann-lee", "Ann Lee")])


def test_a_unit_of_work_that_lost_a_race_for_a_unique_key_runs_again_and_finds_the_row(
    database: Database,
) -> None:
    now = datetime.now(UTC)
    with session_scope(database.sessions) as session:
        session.add(SignInKey(email_key="ada@example.org", key="first", created_at=now))
    runs: list[int] = []

    def make_if_missing(session: Session) -> str:
        runs.append(1)
        if len(runs) == 1:  # as a request that read "missing" just before another inserted it
            session.add(SignInKey(email_key="ada@example.org", key="second", created_at=now))
            session.flush()
        found = session.get(SignInKey, "ada@example.org")
        assert found is not None
        return found.key

    assert unit_of_work(database.sessions, make_if_missing) == "first"
    assert len(runs) == 2


def test_a_unit_of_work_refused_by_another_constraint_is_not_run_again(
    database: Database,
) -> None:
    runs: list[int] = []

    def vote_for_a_missing_paper(session: Session) -> None:
        runs.append(1)
        now = datetime.now(UTC)
        session.add(
            Vote(
                voter="ada@example.org", arxiv_id="0000.00000", voted_on=now.date(), created_at=now
            )
        )
        session.flush()

    with pytest.raises(IntegrityError):
        unit_of_work(database.sessions, vote_for_a_missing_paper)
    assert len(runs) == 1
