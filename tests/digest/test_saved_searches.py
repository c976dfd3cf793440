"""A reader's saved searches: what may be kept, the limits said in words, nothing lost."""

from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from accounts.saved_searches import (
    MAX_QUERY,
    MAX_SAVED,
    SavedQuery,
    SavedSearchRefusedError,
    all_searches,
    checked,
    forget_search,
    save_search,
    saved_rows,
    searches_of,
)
from accounts.subscriptions import delete_everything
from app.core.db import session_scope
from app.core.models import SavedSearch, Subscriber
from tests.conftest import Database
from tests.digest.editions import add_subscriber

NOW = datetime(2026, 1, 5, 8, tzinfo=UTC)


def test_a_search_is_kept_with_its_words_and_category_whitespace_collapsed() -> None:
    assert checked("  graph   neural\tnetworks -molecule ", "cs.LG") == SavedQuery(
        "graph neural networks -molecule", "cs.LG"
    )
    assert checked("hep", "") == SavedQuery("hep")
    assert checked("x", "astro-ph.GA").label == "x (in astro-ph.GA)"


@pytest.mark.parametrize(
    ("query", "category", "said"),
    [
        ("a" * (MAX_QUERY + 1), "", f"at most {MAX_QUERY} characters; this one has 201"),
        ("   ", "", "needs a word to search for"),
        ("-only -minus", "", "needs a word to search for"),
        ("graph\x00nets", "", "no control characters"),
        ("graph " + " ".join(f"-w{n}" for n in range(11)), "", "at most 10 words, not 11"),
        ("graph", "<script>", "'<script>' is not an arXiv category"),
    ],
)
def test_a_search_that_cannot_be_kept_is_refused_in_words(
    query: str, category: str, said: str
) -> None:
    with pytest.raises(SavedSearchRefusedError, match=said.replace("(", r"\(")):
        checked(query, category)


INVISIBLE = [
    "\u200b",
    "\u200e\u200f",
    "\u202a\u202b\u202c\u202d\u202e",
    "\u2066\u2067\u2068\u2069",
    "\ufeff \u200b",
    "\ufffd\ufffd",
    "\u3164 \u2800",
    "\u0301",
]


@pytest.mark.parametrize("query", INVISIBLE, ids=ascii)
def test_a_search_of_only_invisible_characters_is_refused_in_words(query: str) -> None:
    with pytest.raises(SavedSearchRefusedError, match="needs a word that shows"):
        checked(query, "")
    with pytest.raises(SavedSearchRefusedError, match="needs a word that shows"):
        checked(f"{query} -graphs", "")


def test_a_search_is_kept_in_its_compatibility_form_and_measured_so() -> None:
    assert checked("\uff27\uff32\uff21\uff30\uff28 ﬁlters", "") == SavedQuery("GRAPH filters")
    with pytest.raises(SavedSearchRefusedError, match=f"at most {MAX_QUERY} characters"):
        checked("\ufdfa" * 20, "")  # twenty characters, 360 once normalized


def _reader(database: Database, email: str = "reader@example.org") -> int:
    return add_subscriber(database.sessions, email)


def test_saving_a_search_again_changes_nothing_and_past_the_limit_nothing_is_lost(
    database: Database,
) -> None:
    reader = _reader(database)
    with session_scope(database.sessions) as session:
        found = session.get_one(Subscriber, reader)
        for n in range(MAX_SAVED):
            save_search(session, found, f"topic {n}", "", NOW)
        save_search(session, found, "topic 0", "", NOW)  # kept already
        with pytest.raises(SavedSearchRefusedError, match="you follow 20 searches"):
            save_search(session, found, "one more", "", NOW)
    with database.sessions() as session:
        kept = searches_of(session, reader)
    assert [saved.query for saved in kept] == [f"topic {n}" for n in range(MAX_SAVED)]


def test_a_reader_forgets_only_their_own_searches_and_all_of_them_go_with_the_reader(
    database: Database,
) -> None:
    one, other = _reader(database), _reader(database, "other@example.org")
    with session_scope(database.sessions) as session:
        for ident, query in ((one, "graphs"), (other, "proteins"), (one, "kernels")):
            save_search(session, session.get_one(Subscriber, ident), query, "", NOW)
    with session_scope(database.sessions) as session:
        [(theirs, _)] = saved_rows(session, other)
        forget_search(session, session.get_one(Subscriber, one), theirs)  # not theirs to forget
        (first, _), _ = saved_rows(session, one)
        forget_search(session, session.get_one(Subscriber, one), first)
    with database.sessions() as session:
        assert all_searches(session) == {
            one: [SavedQuery("kernels")],
            other: [SavedQuery("proteins")],
        }
    with session_scope(database.sessions) as session:
        delete_everything(session, session.get_one(Subscriber, one))
    with database.sessions() as session:
        assert session.scalar(select(func.count()).select_from(SavedSearch)) == 1


def test_a_search_saved_again_in_other_case_or_with_invisible_characters_is_the_same_search(
    database: Database,
) -> None:
    reader = _reader(database)
    with session_scope(database.sessions) as session:
        found = session.get_one(Subscriber, reader)
        save_search(session, found, "graph neural networks", "", NOW)
        save_search(session, found, "GRAPH neural networks", "", NOW)
        save_search(session, found, "graph\u200b neural \u202enetworks", "", NOW)
        save_search(session, found, "Graph Neural Networks", "cs.LG", NOW)  # another category
    with database.sessions() as session:
        assert searches_of(session, reader) == [
            SavedQuery("graph neural networks"),
            SavedQuery("Graph Neural Networks", "cs.LG"),
        ]


def test_a_refused_search_stores_nothing(database: Database) -> None:
    reader = _reader(database)
    with session_scope(database.sessions) as session, pytest.raises(SavedSearchRefusedError):
        save_search(session, session.get_one(Subscriber, reader), "\u200b\u2066", "", NOW)
    with database.sessions() as session:
        assert session.scalar(select(func.count()).select_from(SavedSearch)) == 0
