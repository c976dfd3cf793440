"""A search followed as a feed: ``/search/feed.{rss,atom,json}`` with the page's own query."""

import html
import re
from urllib.parse import parse_qs, urlsplit

import feedparser
import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.web.app import create_app
from tests.web.conftest import HF_PAPER
from tests.web.test_feeds import VERSIONS, validate_json_feed
from tests.web.test_pages import listed

QUERY = {"q": "animation video"}


def _feed_ids(client: TestClient, fmt: str, params: dict[str, str]) -> list[str]:
    response = client.get(f"/search/feed.{fmt}", params=params)
    assert response.status_code == 200, response.text
    if fmt == "json":
        body = response.json()
        validate_json_feed(body)
        return [item["url"].split("/papers/", 1)[1] for item in body["items"]]
    parsed = feedparser.parse(response.content)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == VERSIONS[fmt]
    return [entry["link"].split("/papers/", 1)[1] for entry in parsed.entries]


@pytest.mark.parametrize("fmt", ["rss", "atom", "json"])
def test_a_search_feed_holds_the_searchs_matches_newest_first(client: TestClient, fmt: str) -> None:
    newest = listed(client.get("/search", params=QUERY | {"sort": "newest"}).text)
    assert len(newest) == 20
    found = _feed_ids(client, fmt, QUERY)
    # The page shows 20 a page; the feed holds the first 50 in the same order.
    assert found[: len(newest)] == newest
    days = [client.get(f"/api/papers/{arxiv_id}").json()["announcedOn"] for arxiv_id in found]
    assert days == sorted(days, reverse=True)


def test_filters_and_excluded_words_hold_in_the_feed_as_on_the_page(client: TestClient) -> None:
    without = QUERY | {"q": "animation video -AnimaMimic"}
    assert HF_PAPER not in listed(client.get("/search", params=without).text)
    assert HF_PAPER not in _feed_ids(client, "rss", without)
    assert HF_PAPER in _feed_ids(client, "rss", QUERY)
    in_graphics = _feed_ids(client, "json", QUERY | {"category": "cs.GR"})
    assert in_graphics
    for arxiv_id in in_graphics:
        assert "cs.GR" in client.get(f"/api/papers/{arxiv_id}").json()["categories"]


def test_a_search_with_no_match_is_an_empty_valid_feed(client: TestClient) -> None:
    for fmt in ("rss", "atom", "json"):
        assert _feed_ids(client, fmt, {"q": "zzzqqqxxy"}) == []
        assert _feed_ids(client, fmt, {}) == []


def test_a_search_feed_names_itself_and_its_page_with_the_query(client: TestClient) -> None:
    body = client.get("/search/feed.json", params=QUERY | {"since": "2025-12-01"}).json()
    assert body["title"] == "Paperboy search: “animation video” from 2025-12-01"
    feed, page = urlsplit(body["feed_url"]), urlsplit(body["home_page_url"])
    assert feed.path == "/search/feed.json" and page.path == "/search"
    assert parse_qs(feed.query) == {"q": ["animation video"], "since": ["2025-12-01"]}
    assert parse_qs(page.query)["sort"] == ["newest"]


def test_a_search_feed_is_kept_a_quarter_hour_and_revalidated_by_its_etag(
    client: TestClient,
) -> None:
    first = client.get("/search/feed.atom", params=QUERY)
    assert first.headers["cache-control"] == "public, max-age=900"
    again = client.get(
        "/search/feed.atom", params=QUERY, headers={"If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304 and not again.content


def test_malformed_search_feed_parameters_are_a_clear_400(client: TestClient) -> None:
    bad_day = client.get("/search/feed.rss", params=QUERY | {"until": "soon"})
    assert bad_day.status_code == 400 and "until must be a date" in bad_day.text
    assert bad_day.headers["content-type"].startswith("application/json")  # as documented
    many = " ".join(f"-w{n}" for n in range(11))
    too_many = client.get("/search/feed.rss", params={"q": f"video {many}"})
    assert too_many.status_code == 400
    assert "at most 10 words, not 11" in too_many.text
    wrong_format = client.get("/search/feed.xml", params=QUERY)
    assert wrong_format.status_code == 400 and "fmt" in wrong_format.text


def test_each_fetch_of_a_search_feed_counts_against_the_clients_searches(
    site_settings: Settings,
) -> None:
    limited = site_settings.model_copy(
        update={"api_rate_limit_per_minute": 6, "api_rate_limit_burst": 2}
    )
    with TestClient(create_app(limited)) as client:
        statuses = [client.get("/search/feed.rss", params=QUERY).status_code for _ in range(3)]
        page = client.get("/search", params=QUERY)
    assert statuses == [200, 200, 429]
    assert page.status_code == 429  # the page and its feed share the client's searches


def test_the_search_page_links_its_feeds_with_its_query(client: TestClient) -> None:
    page = client.get("/search", params=QUERY | {"category": "cs.GR", "sort": "newest"}).text
    links = re.findall(r'href="(/search/feed\.(?:rss|atom|json)\?[^"]*)"', page)
    assert len(links) == 4  # the head's alternate and the three in the page
    for link in links:
        query = parse_qs(urlsplit(html.unescape(link)).query)
        assert query == {"q": ["animation video"], "category": ["cs.GR"]}
        assert client.get(html.unescape(link)).status_code == 200
