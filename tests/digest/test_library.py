"""The library's rules in the store: refusals change nothing, a reader's going takes it all."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from accounts.library import (
    LibraryRefusedError,
    create_list,
    file_under,
    hidden_ids,
    mark_read,
    not_interested,
    reader_lists,
    set_note,
)
from accounts.reader import give_feedback, save, saved_ids
from accounts.subscriptions import delete_everything
from app.core.db import session_scope
from app.core.models import Paper, ReadingList, SavedPaper, Subscriber
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


def _library_row(database: Database, reader: int, arxiv_id: str) -> tuple[object, ...] | None:
    with database.sessions() as session:
        row = session.get(SavedPaper, (reader, arxiv_id))
        return None if row is None else (row.saved_at, row.list_id, row.read_at, row.note)


@pytest.mark.parametrize("take_back", ["thumbs none", "thumbs up", "save again"])
def test_not_interested_keeps_the_saved_paper_and_taking_it_back_shows_it_as_it_was(
    database: Database, take_back: str
) -> None:
    _paper(database, "2601.00004")
    reader = add_subscriber(database.sessions, "reader@example.org")
    with session_scope(database.sessions) as session:
        found = session.get_one(Subscriber, reader)
        file_under(session, found, "2601.00004", create_list(session, found, "Mine", NOW), NOW)
        mark_read(session, found, "2601.00004", True, NOW)
        set_note(session, found, "2601.00004", "Compare with §4 of the survey.", NOW)
    before = _library_row(database, reader, "2601.00004")
    later = NOW + timedelta(days=1)
    with session_scope(database.sessions) as session:
        not_interested(session, session.get_one(Subscriber, reader), "2601.00004", later)
    with database.sessions() as session:
        assert saved_ids(session, reader) == []  # off the reading list while hidden
    assert _library_row(database, reader, "2601.00004") == before
    with session_scope(database.sessions) as session:
        found = session.get_one(Subscriber, reader)
        if take_back == "save again":
            save(session, found, "2601.00004", later)
        else:
            give_feedback(session, found, "2601.00004", 1 if take_back == "thumbs up" else 0, later)
    with database.sessions() as session:
        assert saved_ids(session, reader) == ["2601.00004"]
        assert hidden_ids(session, reader) == set()
    assert _library_row(database, reader, "2601.00004") == before


@pytest.mark.parametrize(
    "name",
    ["\u200b", "\u200e\u200f", "\u202a\u202e", "\u2066 \u2069", "\ufeff", "\ufffd"],
    ids=ascii,
)
def test_a_list_name_of_only_invisible_characters_is_refused_and_nothing_stored(
    database: Database, name: str
) -> None:
    reader = add_subscriber(database.sessions, "reader@example.org")
    with (
        session_scope(database.sessions) as session,
        pytest.raises(LibraryRefusedError, match="needs a character that shows"),
    ):
        create_list(session, session.get_one(Subscriber, reader), name, NOW)
    with database.sessions() as session:
        assert session.scalar(select(func.count()).select_from(ReadingList)) == 0


def test_list_names_alike_but_for_case_width_or_invisible_characters_are_one_name(
    database: Database,
) -> None:
    reader = add_subscriber(database.sessions, "reader@example.org")
    with session_scope(database.sessions) as session:
        create_list(session, session.get_one(Subscriber, reader), "Graph papers", NOW)
    for alike in ("GRAPH PAPERS", "\uff27raph papers", "Graph\u200b papers\u200f"):
        with (
            session_scope(database.sessions) as session,
            pytest.raises(LibraryRefusedError, match="a list named “Graph papers” already"),
        ):
            create_list(session, session.get_one(Subscriber, reader), alike, NOW)
    with database.sessions() as session:
        assert [name for _, name in reader_lists(session, reader)] == ["Graph papers"]


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
