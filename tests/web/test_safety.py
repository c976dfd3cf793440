from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from tests.web.conftest import HOSTILE_ABSTRACT, HOSTILE_AUTHOR, HOSTILE_ID, HOSTILE_TITLE
from tests.web.explained import TOP, explained_site
from tests.web.helpers import whole_edition

PAGES = (
    "/",
    f"/papers/{HOSTILE_ID}",
    "/search?q=unbalanced+bound",
    "/authors/jose-perez",
)


@pytest.mark.parametrize("url", PAGES)
def test_hostile_titles_abstracts_and_names_are_shown_as_text(client: TestClient, url: str) -> None:
    # The trending page in all its pages: the hostile paper ranks past the first.
    html = whole_edition(client, url) if url == "/" else client.get(url).text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert" not in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(2)&gt;" in html
    assert "{{ 7*7 }} {% raw %}" in html  # shown, never evaluated


def test_the_paper_page_keeps_broken_latex_and_direction_marks_inert(client: TestClient) -> None:
    html = client.get(f"/papers/{HOSTILE_ID}").text
    assert "$\\frac{1}{ unbalanced" in html and "\\begin{align} never closed" in html
    assert "\u202eRight-to-left\u202c" in html
    assert 'class="abstract math"' in html  # isolated: the marks cannot flip the page
    assert "&lt;b&gt;bold&lt;/b&gt; {{ config }} &lt;!-- comment" in html
    assert "&#34;&gt;&lt;img src=x onerror=alert(3)&gt;" in html


def test_the_api_returns_hostile_strings_unchanged_as_json(client: TestClient) -> None:
    body = client.get(f"/api/papers/{HOSTILE_ID}").json()
    assert body["title"] == HOSTILE_TITLE
    assert body["summary"] == HOSTILE_ABSTRACT
    assert HOSTILE_AUTHOR in [author["name"] for author in body["authors"]]


def test_a_javascript_url_in_a_comment_never_becomes_a_link(client: TestClient) -> None:
    html = client.get(f"/papers/{HOSTILE_ID}").text
    assert 'href="javascript:' not in html.lower()


@pytest.mark.parametrize("url", ["/", "/api/daily_papers", "/papers/2512.00000", "/search"])
def test_every_response_carries_a_content_security_policy_and_the_usual_headers(
    client: TestClient, url: str
) -> None:
    headers = client.get(url).headers
    policy = headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self';" in policy
    assert "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert "referrer-policy" in headers


class _Attributes(HTMLParser):
    """Every start tag's attribute names, as a browser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.names += [f"{tag} {name}" for name, _ in attrs]


def handler_attributes(html: str) -> list[str]:
    """The event handler attributes (``onerror=``...) of ``html``'s elements."""
    found = _Attributes()
    found.feed(html)
    return [name for name in found.names if name.split()[1].startswith("on")]


def test_the_handler_check_finds_an_attribute_not_escaped_text() -> None:
    assert handler_attributes('<img src=x onerror="a()"><p title="&lt;b onclick=1&gt;">') == [
        "img onerror"
    ]


def test_pages_hold_no_inline_script_or_style(client: TestClient) -> None:
    for url in PAGES:
        html = client.get(url).text
        assert "<script>" not in html and " style=" not in html and "<style" not in html
        assert handler_attributes(html) == []


@pytest.mark.parametrize(
    "query", ["//evil.example", "https://evil.example/", "/\\evil.example", "%2F%2Fevil.example"]
)
def test_search_never_redirects_off_the_site(client: TestClient, query: str) -> None:
    response = client.get("/search", params={"q": query}, follow_redirects=False)
    location = response.headers.get("location", "")
    assert response.status_code in (200, 303)
    assert not location or (location.startswith("/") and not location.startswith("//"))


def test_paper_redirects_stay_on_the_site(client: TestClient) -> None:
    response = client.get("/papers/https://arxiv.org/abs/2512.14133v3", follow_redirects=False)
    assert response.status_code == 308
    assert response.headers["location"] == "/papers/2512.14133"


def test_an_overlong_search_is_refused_and_harms_nothing(client: TestClient) -> None:
    response = client.get("/search", params={"q": "protein " * 100})
    assert response.status_code == 400 and "longer than 200 characters" in response.text
    huge = client.get("/api/papers/search", params={"q": "x" * 5000})
    assert huge.status_code == 400
    assert client.get("/search", params={"q": "protein folding"}).status_code == 200


# A reason's words are the scorer's, and may one day quote a title or an author's name.
HOSTILE_REASON = '<script>alert(5)</script> "><img src=x onerror=alert(6)> {{ 7*7 }}'


@pytest.fixture(scope="module")
def hostile_reasons(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with explained_site(tmp_path_factory.mktemp("hostile"), authors=HOSTILE_REASON) as client:
        yield client


@pytest.mark.parametrize("url", ["/", "/?period=week", f"/papers/{TOP}", "/feeds/daily.rss"])
def test_a_hostile_reason_is_shown_as_text(hostile_reasons: TestClient, url: str) -> None:
    body = hostile_reasons.get(url).text
    assert "alert(5)" in body and "{{ 7*7 }}" in body  # shown, never evaluated
    assert "<script>alert" not in body and "<img src=x" not in body


def test_the_api_returns_a_hostile_reason_unchanged(hostile_reasons: TestClient) -> None:
    [top, *_] = hostile_reasons.get("/api/daily_papers", params={"sort": "trending"}).json()
    assert top["explanation"][0]["text"] == HOSTILE_REASON
