import pytest

from ingest.errors import FeedFormatError, UnsafeXmlError
from ingest.safe_xml import local_name, parse_xml
from tests.ingest.hostile_xml import ENTITY_BOMB, EXTERNAL_ENTITY


def test_a_well_formed_document_parses_to_its_root() -> None:
    root = parse_xml(b'<feed xmlns="http://www.w3.org/2005/Atom"><id>x</id></feed>', "feed")
    assert local_name(root) == "feed"


def test_an_external_entity_is_refused() -> None:
    with pytest.raises(UnsafeXmlError, match="refused unsafe XML"):
        parse_xml(EXTERNAL_ENTITY, "listing feed")


def test_an_entity_bomb_is_refused_without_expanding_it() -> None:
    # defusedxml refuses at the first entity declaration, before any reference is expanded.
    with pytest.raises(UnsafeXmlError, match="listing feed: refused unsafe XML"):
        parse_xml(ENTITY_BOMB, "listing feed")


@pytest.mark.parametrize(
    "body",
    [
        b'<?xml version="1.0"?><feed><entry><title>cut off',
        b"<feed><entry></feed>",
    ],
    ids=["truncated", "mismatched-tags"],
)
def test_malformed_or_truncated_xml_is_a_clear_error(body: bytes) -> None:
    with pytest.raises(FeedFormatError, match="not well-formed XML"):
        parse_xml(body, "listing feed")


def test_bytes_that_are_not_utf8_are_a_clear_error() -> None:
    body = b'<?xml version="1.0" encoding="UTF-8"?><feed><title>Caf\xe9</title></feed>'
    with pytest.raises(FeedFormatError, match="not well-formed XML"):
        parse_xml(body, "listing feed")


def test_an_unknown_declared_encoding_is_a_clear_error() -> None:
    body = b'<?xml version="1.0" encoding="ATF-8"?><feed><title>x</title></feed>'
    with pytest.raises(FeedFormatError, match=r"not well-formed XML .*ATF-8"):
        parse_xml(body, "listing feed")


def test_an_html_error_page_is_reported_with_its_first_bytes() -> None:
    body = b"<!DOCTYPE html>\n<html><body><h1>Service Unavailable</h1><br></body></html>"
    with pytest.raises(FeedFormatError, match="response starts b'<!DOCTYPE html>"):
        parse_xml(body, "listing feed")


def test_an_empty_response_is_a_clear_error() -> None:
    with pytest.raises(FeedFormatError, match="empty response"):
        parse_xml(b"  \n", "listing feed")
