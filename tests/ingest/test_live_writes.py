"""What live ingest stores besides papers: withdrawn flags and day listings."""

from __future__ import annotations

from datetime import date

import pytest

from ingest import live_writes
from ingest.records import PaperRecord
from tests.conftest import Database


def record(comment: str | None = None, abstract: str = "We study things.") -> PaperRecord:
    return PaperRecord(
        arxiv_id="1007.2349",
        version=None,
        title="A title",
        abstract=abstract,
        authors=("A. Author",),
        categories=("hep-th",),
        comment=comment,
    )


@pytest.mark.parametrize(
    ("comment", "abstract"),
    [
        # The two comments are real (Kaggle snapshot, OAI-PMH); the abstracts follow arXiv wording.
        (
            "This paper has been withdrawn by the authors. This paper has been accepted for "
            "publication in JGR-Space Physics.",
            "We study things.",
        ),
        ("This reprint has been withdrawn at the request of the AGU.", "We study things."),
        (None, "This paper has been withdrawn by the author due to a crucial error."),
        (None, "Withdrawn."),
    ],
)
def test_a_withdrawal_in_the_comment_or_opening_the_abstract_is_recognised(
    comment: str | None, abstract: str
) -> None:
    assert live_writes.is_withdrawn(record(comment, abstract))


def test_withdrawn_as_ordinary_prose_in_an_abstract_is_not_a_withdrawal() -> None:
    abstract = "A sample of blood is withdrawn from each patient and analysed."
    assert not live_writes.is_withdrawn(record("12 pages", abstract))


def test_a_listing_only_grows(database: Database) -> None:
    day = date(2023, 10, 26)
    with database.sessions.begin() as session:
        assert live_writes.add_listing(session, day, "cs", {"2310.16106": "new"}) == 0
        assert live_writes.add_listing(session, day, "cs", {"2310.05646": "cross"}) == 1
        assert live_writes.add_listing(session, day, "cs", {"2310.16106": "replace"}) == 2
    with database.sessions() as session:
        assert live_writes.listed_ids(session, day, ["cs"]) == ["2310.05646", "2310.16106"]
        assert live_writes.latest_listing_day(session) == day
