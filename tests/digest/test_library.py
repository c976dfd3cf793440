"""The library's rules in the store: refusals change nothing, a reader's going takes it all."""

from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from app.core.db import session_scope
from app.core.models import Paper, ReadingList, SavedPaper, Subscriber
from digest.accounts.library import (
    LibraryRefusedError,
    create_list,
    file_under,
    hidden_ids,
    not_interested,
    set_note,
)
from digest.accounts.reader import give_feedback
from digest.accounts.subscriptions import delete_everything
from digest.selection import Taste, eligible
from tests.conftest import Database
from tests.digest.editions import add_subscriber
from tests.digest.test_sections import day
from tests.digest.test_selection import paper

NOW = datetime(2026, 1, 5, 8, tzinfo=UTC)


def _paper(database: Database, arxiv_id: str) -> None:
    with session_scope(database.sessions) as session:
        session.add(
            Paper(arxiv_id=arxiv_id, title="A title", abstract="An abstract.", content_hash="x")
        )


def test_a_refused_note_keeps_the_note_before_it(database: Database) -> None:
    _paper(database, "2601.00001")
    reader = add_subscriber(database.sessions, "reader@example.org")
    with session_scope(database.sessions) as session:
        set_note(session, session.get_one(Subscriber, reader), "2601.00001", "kept\r\nline", NOW)
    with session_scope(database.sessions) as session, pytest.raises(LibraryRefusedError):
        set_note(session, session.get_one(Subscriber, reader), "2601.00001", "a\x07bell", NOW)
    with database.sessions() as session:
        assert session.get_one(SavedPaper, (reader, "2601.00001")).note == "kept\nline"


def test_not_interested_is_hidden_until_a_thumbs_is_given_again(database: Database) -> None:
    _paper(database, "2601.00002")
    reader = add_subscriber(database.sessions, "reader@example.org")
    with session_scope(database.sessions) as session:
        not_interested(session, session.get_one(Subscriber, reader), "2601.00002", NOW)
    with database.sessions() as session:
        assert hidden_ids(session, reader) == {"2601.00002"}
    with session_scope(database.sessions) as session:
        give_feedback(session, session.get_one(Subscriber, reader), "2601.00002", 1, NOW)
    with database.sessions() as session:
        assert hidden_ids(session, reader) == set()


def test_a_hidden_paper_is_in_no_section() -> None:
    view = day([paper(n) for n in range(1, 6)], edition_size=3)
    taste = Taste(max_items=5, hidden=frozenset({"2603.00002"}))
    assert eligible(view, taste, exclusion_cosine=0.5).tolist() == [True, False, True, True, True]


def test_a_readers_lists_go_with_the_reader(database: Database) -> None:
    _paper(database, "2601.00003")
    reader = add_subscriber(database.sessions, "reader@example.org")
    with session_scope(database.sessions) as session:
        found = session.get_one(Subscriber, reader)
        file_under(session, found, "2601.00003", create_list(session, found, "Mine", NOW), NOW)
    with session_scope(database.sessions) as session:
        delete_everything(session, session.get_one(Subscriber, reader))
    with database.sessions() as session:
        assert session.scalar(select(func.count()).select_from(ReadingList)) == 0
        assert session.scalar(select(func.count()).select_from(SavedPaper)) == 0
