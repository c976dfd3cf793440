"""Damaged RSS and Atom listings, at random: items and rejections, or a feed format error."""

from __future__ import annotations

from hypothesis import example, given, settings

from ingest.errors import FeedFormatError
from ingest.records import checked
from ingest.rss import parse_listing
from tests.conftest import FIXTURES
from tests.ingest.mutations import damaged

# Renamed as the RSS tests do: the recordings' synthetic ids are not valid arXiv ids.
RECORDINGS = [
    path.read_bytes().replace(b"1234.56", b"2310.056")
    for path in sorted((FIXTURES / "arxiv_rss").glob("*.xml"))
]


@given(damaged(RECORDINGS))
@example(RECORDINGS[0].replace(b"encoding='UTF-8'", b"encoding='ATF-8'"))  # found by this test
@settings(max_examples=300, deadline=None)
def test_a_damaged_listing_gives_clean_items_or_a_feed_format_error(body: bytes) -> None:
    try:
        listing = parse_listing(body)
    except FeedFormatError as error:
        assert str(error)
        return
    assert all(checked(item.record) == item.record for item in listing.items)
    assert all(reason for reason in listing.rejected)
