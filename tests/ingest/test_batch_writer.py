"""A bulk import's way of storing batches (:mod:`ingest.bulk.batch_writer`): the same rows as live
ingest's plain way, and what only a bulk loader needs (a batch that crosses a pickle, authors
remembered across batches). ``tests/ingest/test_paper_writer.py`` runs its cases on both ways."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime

from sqlalchemy import Row, Table, delete, select
from sqlalchemy.orm import Session, sessionmaker

from app.core.models import Author, Paper
from ingest.bulk.batch_writer import prepare_batch, store_batch
from ingest.paper_writer import (
    StoreCounts,
    authors,
    paper_authors,
    paper_categories,
    papers,
    store_records,
)
from ingest.records import PaperRecord
from tests.ingest.test_paper_writer import record, stored_links

SUBMITTED = datetime(2025, 3, 17, 14, 5, tzinfo=UTC)
# Three batches, stored in order, that take every path: a first batch of new papers only; then
# newer and older versions, a paper twice in a batch, an update without authors, an earlier
# announcement, changed text without versions, one name spelled two ways, a name with no key.
BATCHES: tuple[tuple[PaperRecord, ...], ...] = (
    (
        record(
            "2503.00001",
            version=1,
            authors=("José Pérez", "Ann Lee"),
            categories=("cs.CL",),
            primary_category="cs.AI",
            comment="9 pages",
            journal_ref="J. 1",
            doi="10.1/x",
            license="CC BY",
            submitted_at=SUBMITTED,
            updated_at=SUBMITTED,
            announced_on=date(2025, 3, 18),
        ),
        record("2503.00002", authors=("Ann Lee", "--", "Bo Chen"), announced_on=date(2025, 3, 18)),
        record("2503.00003", version=2, authors=(), announced_on=date(2025, 3, 19)),
        record("2503.00004", version=None, abstract="", announced_on=date(2025, 3, 19)),
    ),
    (
        record(
            "2503.00001",
            version=2,
            authors=("Jose Perez", "Cy Dee"),
            categories=("cs.LG",),
            announced_on=date(2025, 3, 20),
        ),
        record("2503.00002", authors=("Ann Lee", "--", "Bo Chen"), announced_on=date(2025, 3, 17)),
        record("2503.00003", version=1, authors=("Old Name",), announced_on=date(2025, 3, 17)),
        record("2503.00005", version=1, authors=("Di Eng",), announced_on=date(2025, 3, 19)),
        record(
            "2503.00005", version=3, authors=("Di Eng", "Ann Lee"), announced_on=date(2025, 3, 20)
        ),
        record("2503.00005", version=2, authors=("Ed Fox",), announced_on=date(2025, 3, 21)),
    ),
    (
        record(
            "2503.00001",
            version=3,
            authors=(),
            categories=("cs.CV",),
            comment=None,
            announced_on=date(2025, 3, 21),
        ),
        record("2503.00004", version=None, title="A changed title", abstract="Now with text."),
        record("2503.00006", version=1, submitted_at=SUBMITTED, announced_on=date(2025, 3, 21)),
    ),
)

Store = Callable[[Session, Sequence[PaperRecord]], StoreCounts]


def store_in_bulk(session: Session, records: Sequence[PaperRecord]) -> StoreCounts:
    return store_batch(session, prepare_batch(records), set())


def stored_rows(sessions: sessionmaker[Session]) -> dict[str, list[Row[tuple[object, ...]]]]:
    """Every row of the tables a store writes, in key order (not the time a paper was stored)."""
    tables: tuple[Table, ...] = (papers, authors, paper_authors, paper_categories)
    with sessions() as session:
        return {
            table.name: list(
                session.execute(
                    select(*(c for c in table.c if c.name != "first_stored_at")).order_by(
                        *table.primary_key.columns
                    )
                )
            )
            for table in tables
        }


def stored_through(
    sessions: sessionmaker[Session], store: Store
) -> tuple[list[StoreCounts], dict[str, list[Row[tuple[object, ...]]]]]:
    counts = []
    for batch in BATCHES:
        with sessions.begin() as session:
            counts.append(store(session, batch))
    rows = stored_rows(sessions)
    with sessions.begin() as session:
        for table in (paper_authors, paper_categories, papers, authors):
            session.execute(delete(table))
    return counts, rows


def test_the_bulk_store_and_the_plain_store_give_the_same_rows_and_counts(
    sessions: sessionmaker[Session],
) -> None:
    plain_counts, plain_rows = stored_through(sessions, store_records)
    bulk_counts, bulk_rows = stored_through(sessions, store_in_bulk)
    assert bulk_counts == plain_counts
    assert plain_counts[1] == StoreCounts(new=1, updated=4, unchanged=1)
    assert bulk_rows == plain_rows
    assert [len(rows) for rows in plain_rows.values()] == [6, 5, 10, 6]


def test_a_batch_crosses_a_pickle_and_an_empty_one_stores_nothing(
    sessions: sessionmaker[Session],
) -> None:
    batch = prepare_batch([record("2503.00009"), record("2503.00010")])
    with sessions.begin() as session:
        assert store_batch(session, pickle.loads(pickle.dumps(batch))) == StoreCounts(new=2)
        assert store_batch(session, prepare_batch([])) == StoreCounts()
    with sessions() as session:
        assert sorted(session.scalars(select(Paper.arxiv_id))) == ["2503.00009", "2503.00010"]


def test_authors_a_loader_stored_earlier_are_not_inserted_twice(
    sessions: sessionmaker[Session],
) -> None:
    stored_keys: set[str] = set()
    with sessions.begin() as session:
        store_batch(session, prepare_batch([record("2503.00011")]), stored_keys)
        assert stored_keys == {"ann-lee", "bo-chen"}
        store_batch(session, prepare_batch([record("2503.00012")]), stored_keys)
    with sessions() as session:
        assert sorted(session.scalars(select(Author.key))) == ["ann-lee", "bo-chen"]
    assert len(stored_links(sessions, "2503.00012")[0]) == 2
