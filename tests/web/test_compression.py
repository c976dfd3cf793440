"""Public answers are compressed as the client accepts; answers that carry a secret never are."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.web.middleware.security import chosen_encoding, encoded_tag

BR, GZIP, NONE = (
    {"Accept-Encoding": "br, gzip"},
    {"Accept-Encoding": "gzip"},
    {"Accept-Encoding": "identity"},
)


@pytest.mark.parametrize(
    "path", ["/", "/?period=week", "/api/daily_papers?limit=100", "/feeds/daily.atom"]
)
def test_a_public_answer_is_compressed_and_decodes_to_the_same_bytes(
    client: TestClient, path: str
) -> None:
    plain = client.get(path, headers=NONE)
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert "Accept-Encoding" in plain.headers["Vary"]  # a cache keeps one copy per encoding
    for asked, encoding in ((BR, "br"), (GZIP, "gzip")):
        packed = client.get(path, headers=asked)
        assert packed.headers["Content-Encoding"] == encoding
        assert packed.content == plain.content  # decoded by the client
        assert int(packed.headers["Content-Length"]) < len(plain.content)
        assert "Accept-Encoding" in packed.headers["Vary"]
        assert packed.headers["ETag"] == encoded_tag(plain.headers["ETag"], encoding)


def test_the_trending_page_is_far_smaller_on_the_wire(client: TestClient) -> None:
    raw = client.get("/", headers=BR)
    wire = int(raw.headers["Content-Length"])
    assert wire * 4 < len(raw.content)


def test_an_encoded_etag_revalidates_to_a_304(client: TestClient) -> None:
    first = client.get("/", headers=BR)
    again = client.get("/", headers={**BR, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    other = client.get("/", headers={**GZIP, "If-None-Match": first.headers["ETag"]})
    assert other.status_code == 304  # the same page, whichever encoding the tag names


@pytest.mark.parametrize("path", ["/subscribe", "/signin"])
def test_a_page_with_a_csrf_token_is_never_compressed(client: TestClient, path: str) -> None:
    page = client.get(path, headers=BR)
    assert page.status_code == 200 and 'name="csrf"' in page.text
    assert "content-encoding" not in page.headers


def test_a_small_answer_and_a_static_file(client: TestClient) -> None:
    small = client.get("/api/version", headers=BR)
    assert "content-encoding" not in small.headers
    css = client.get("/static/paperboy.css", headers=BR)
    assert css.status_code == 200 and css.headers["Content-Encoding"] == "br"


@pytest.mark.parametrize(
    ("header", "encoding"),
    [
        ("br, gzip", "br"),
        ("gzip, deflate", "gzip"),
        ("gzip;q=0, br;q=0", None),
        ("br;q=0, gzip", "gzip"),
        ("identity", None),
        ("*", "br"),
        ("", None),
    ],
)
def test_the_encoding_is_the_best_the_client_accepts(header: str, encoding: str | None) -> None:
    assert chosen_encoding(header) == encoding


def test_an_etag_names_its_encoding() -> None:
    assert encoded_tag('"abc"', "br") == '"abc-br"'
    assert encoded_tag('W/"abc"', "gzip") == 'W/"abc-gzip"'
