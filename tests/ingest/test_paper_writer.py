"""Storing batches of records: the rows each table gets for new papers and papers already
stored. Each test runs on both ways of storing: live ingest's plain one
(:func:`ingest.paper_writer.store_records`) and a bulk import's
(:func:`ingest.bulk.batch_writer.store_batch`), which must give the same rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.core.models import Author, Paper, PaperAuthor, PaperCategory
from ingest.bulk.batch_writer import prepare_batch, store_batch
from ingest.paper_writer import StoreCounts
from ingest.paper_writer import store_records as store_plainly
from ingest.records import PaperRecord

Store = Callable[[Session, Sequence[PaperRecord]], StoreCounts]


def store_in_bulk(session: Session, records: Sequence[PaperRecord]) -> StoreCounts:
    return store_batch(session, prepare_batch(records))


@pytest.fixture(params=[store_plainly, store_in_bulk], ids=["plain", "bulk"])
def store_records(request: pytest.FixtureRequest) -> Store:
    store: Store = request.param
    return store


def record(arxiv_id: str, **fields: object) -> PaperRecord:
    values: dict[str, object] = {
        "version": None,
        "title": f"Title of {arxiv_id}",
        "abstract": "An abstract.",
        "authors": ("Ann Lee", "Bo Chen"),
        "categories": ("cs.CL",),
    }
    return PaperRecord(arxiv_id, **{**values, **fields})  # type: ignore[arg-type]


def stored_links(
    sessions: sessionmaker[Session], arxiv_id: str
) -> tuple[list[tuple[int, str, str]], list[tuple[str, int]]]:
    with sessions() as session:
        authors = session.execute(
            select(PaperAuthor.position, PaperAuthor.author_key, PaperAuthor.name)
            .where(PaperAuthor.arxiv_id == arxiv_id)
            .order_by(PaperAuthor.position)
        )
        categories = session.execute(
            select(PaperCategory.category, PaperCategory.position)
            .where(PaperCategory.arxiv_id == arxiv_id)
            .order_by(PaperCategory.position)
        )
        return [tuple(row) for row in authors], [tuple(row) for row in categories]  # type: ignore[misc]


def test_a_batch_of_new_papers_stores_every_column_and_link(
    sessions: sessionmaker[Session], store_records: Store
) -> None:
    submitted = datetime(2025, 3, 17, 14, 5, tzinfo=UTC)
    records = [
        record(
            "2503.00001",
            version=2,
            authors=("José Pérez", "Ann Lee"),
            categories=("cs.CL", "cs.AI"),
            primary_category="cs.CL",
            comment="9 pages",
            journal_ref="J. 1",
            doi="10.1/x",
            license="CC BY",
            submitted_at=submitted,
            updated_at=submitted,
            announced_on=date(2025, 3, 18),
        ),
        record("2503.00002", announced_on=date(2025, 3, 18)),
    ]
    with sessions.begin() as session:
        assert store_records(session, records) == StoreCounts(new=2)
    with sessions() as session:
        first = session.get_one(Paper, "2503.00001")
        assert (first.version, first.primary_category, first.comment, first.journal_ref) == (
            2,
            "cs.CL",
            "9 pages",
            "J. 1",
        )
        assert (first.doi, first.license, first.submitted_at, first.announced_on) == (
            "10.1/x",
            "CC BY",
            submitted,
            date(2025, 3, 18),
        )
        assert sorted(session.scalars(select(Author.key))) == ["ann-lee", "bo-chen", "jose-perez"]
    assert stored_links(sessions, "2503.00001") == (
        [(0, "jose-perez", "José Pérez"), (1, "ann-lee", "Ann Lee")],
        [("cs.CL", 0), ("cs.AI", 1)],
    )
    assert stored_links(sessions, "2503.00002")[0] == [
        (0, "ann-lee", "Ann Lee"),
        (1, "bo-chen", "Bo Chen"),
    ]


def test_a_primary_category_missing_from_the_list_is_stored_first(
    sessions: sessionmaker[Session], store_records: Store
) -> None:
    with sessions.begin() as session:
        store_records(
            session, [record("2503.00003", categories=("cs.AI",), primary_category="cs.LG")]
        )
    assert stored_links(sessions, "2503.00003")[1] == [("cs.LG", 0), ("cs.AI", 1)]


def test_a_name_without_letters_gets_no_link_and_the_next_author_keeps_his_position(
    sessions: sessionmaker[Session], store_records: Store
) -> None:
    with sessions.begin() as session:
        store_records(session, [record("2503.00004", authors=("Ann Lee", "--", "Bo Chen"))])
    assert stored_links(sessions, "2503.00004")[0] == [
        (0, "ann-lee", "Ann Lee"),
        (2, "bo-chen", "Bo Chen"),
    ]


def test_a_new_paper_without_authors_still_gets_its_categories(
    sessions: sessionmaker[Session], store_records: Store
) -> None:
    with sessions.begin() as session:
        store_records(session, [record("2503.00005", authors=()), record("2503.00006")])
    assert stored_links(sessions, "2503.00005") == ([], [("cs.CL", 0)])
    assert len(stored_links(sessions, "2503.00006")[0]) == 2


def test_an_update_without_authors_keeps_the_stored_lists(
    sessions: sessionmaker[Session], store_records: Store
) -> None:
    with sessions.begin() as session:
        store_records(session, [record("2503.00007", version=1)])
    with sessions.begin() as session:
        counts = store_records(
            session, [record("2503.00007", version=2, authors=(), categories=("cs.AI",))]
        )
    assert counts == StoreCounts(updated=1)
    authors, categories = stored_links(sessions, "2503.00007")
    assert [key for _, key, _ in authors] == ["ann-lee", "bo-chen"]
    assert categories == [("cs.CL", 0)]


def test_a_paper_twice_in_one_batch_is_stored_once_as_its_newest_version(
    sessions: sessionmaker[Session], store_records: Store
) -> None:
    batch = [
        record("2503.00008", version=1, authors=("Ann Lee",)),
        record("2503.00008", version=3, authors=("Bo Chen", "Ann Lee")),
        record("2503.00008", version=2, authors=("Cy Dee",)),
    ]
    with sessions.begin() as session:
        assert store_records(session, batch) == StoreCounts(new=1, updated=1, unchanged=1)
    with sessions() as session:
        assert session.get_one(Paper, "2503.00008").version == 3
    assert [key for _, key, _ in stored_links(sessions, "2503.00008")[0]] == ["bo-chen", "ann-lee"]
