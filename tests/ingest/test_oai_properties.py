"""Damaged OAI-PMH pages, at random: records and rejections, or a documented error."""

from __future__ import annotations

from hypothesis import given, settings

from ingest.errors import FeedFormatError
from ingest.oai import OaiError, parse_page
from ingest.records import checked
from tests.conftest import FIXTURES
from tests.ingest.mutations import damaged

RECORDINGS = [path.read_bytes() for path in sorted((FIXTURES / "arxiv_oai").glob("*.xml"))]


@given(damaged(RECORDINGS))
@settings(max_examples=200, deadline=None)
def test_a_damaged_page_gives_clean_records_or_an_oai_or_format_error(body: bytes) -> None:
    try:
        page = parse_page(body)
    except (FeedFormatError, OaiError) as error:
        assert str(error)
        return
    assert all(checked(record) == record for record in page.records)
    assert all(reason for reason in page.rejected)
