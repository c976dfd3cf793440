import html
import json
import re
from collections.abc import Iterator
from datetime import date, datetime
from html.parser import HTMLParser

import feedparser
import pytest
from defusedxml.ElementTree import fromstring
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator

from app.core.config import Settings
from app.core.names import author_key
from app.core.tex import readable
from app.web.app import create_app
from tests.conftest import FIXTURES
from tests.ranking.explaining import AUTHORS, UPVOTES
from tests.web.conftest import (
    HOSTILE_ABSTRACT,
    HOSTILE_AUTHOR,
    HOSTILE_ID,
    HOSTILE_TITLE,
    LAST_DAY,
)
from tests.web.explained import TOP, explained_site
from tests.web.helpers import a_topic_of, edition_ids

SCHEMA = json.loads((FIXTURES / "web" / "jsonfeed-1.1.schema.json").read_text())
VERSIONS = {"rss": "rss20", "atom": "atom10"}
HOSTILE_AUTHORS = ["José Pérez", HOSTILE_AUTHOR, "Jose Perez"]
WEEK, MONTH = date(2025, 12, 15), date(2025, 12, 1)


def ids_in(entries: list[dict[str, str]]) -> list[str]:
    return [entry["link"].split("/papers/", 1)[1] for entry in entries]


@pytest.mark.parametrize("fmt", ["rss", "atom"])
def test_the_daily_feed_is_valid_and_holds_the_edition_in_order(
    client: TestClient, site_settings: Settings, fmt: str
) -> None:
    response = client.get(f"/feeds/daily.{fmt}")
    assert response.headers["content-type"].startswith(f"application/{fmt}+xml")
    parsed = feedparser.parse(response.content)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == VERSIONS[fmt]
    assert ids_in(parsed.entries) == edition_ids(site_settings, "day", LAST_DAY)
    assert all(
        entry.get("published_parsed") or entry.get("updated_parsed") for entry in parsed.entries
    )


ATOM = {"a": "http://www.w3.org/2005/Atom"}
RFC_3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")


def _entry_dates(client: TestClient, path: str) -> list[tuple[datetime, datetime]]:
    feed = fromstring(client.get(path).content)
    dates = []
    for entry in feed.iterfind("a:entry", ATOM):
        published, updated = (
            entry.findtext(f"a:{name}", "", ATOM) for name in ("published", "updated")
        )
        assert RFC_3339.match(published) and RFC_3339.match(updated), (path, published, updated)
        dates.append((datetime.fromisoformat(published), datetime.fromisoformat(updated)))
    return dates


def test_every_atom_entry_has_its_own_rfc_3339_published_and_updated(client: TestClient) -> None:
    dates = _entry_dates(client, "/feeds/daily.atom")
    assert dates
    for published, updated in dates:
        assert published <= updated
        assert updated.date() == LAST_DAY  # the day arXiv announced it, not the feed's time


@pytest.mark.parametrize(
    "path",
    [
        "/feeds/weekly.atom",
        "/feeds/monthly.atom",
        "/feeds/category/cs.CV.atom",
        "/feeds/week-in-review.atom",
        "/feeds/accuracy.atom",
        "/search/feed.atom?q=diffusion",
    ],
)
def test_each_atom_feed_dates_each_entry_by_itself(client: TestClient, path: str) -> None:
    dates = _entry_dates(client, path)
    assert dates, path
    assert all(published <= updated for published, updated in dates)


def test_the_json_feed_follows_the_json_feed_1_1_schema(
    client: TestClient, site_settings: Settings
) -> None:
    response = client.get("/feeds/daily.json")
    assert response.headers["content-type"].startswith("application/feed+json")
    body = response.json()
    validate_json_feed(body)
    assert [item["url"].split("/papers/")[1] for item in body["items"]] == edition_ids(
        site_settings, "day", LAST_DAY
    )


def test_hostile_titles_stay_text_in_every_feed(client: TestClient) -> None:
    for fmt in ("rss", "atom"):
        parsed = feedparser.parse(client.get(f"/feeds/daily.{fmt}").content)
        titles = {ids_in([e])[0]: e.title for e in parsed.entries}
        if HOSTILE_ID in titles:
            assert titles[HOSTILE_ID] == HOSTILE_TITLE
    raw = client.get("/feeds/daily.rss").text
    assert "<script>" not in raw


MARKUP = "<b>bold</b> {{ config }} <!-- comment"


class Rendered(HTMLParser):
    """What a browser would make of an HTML fragment: its tags, comments and text."""

    def __init__(self, fragment: str) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.comments: list[str] = []
        self.text = ""
        self.feed(fragment)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)

    def handle_data(self, data: str) -> None:
        self.text += data


def test_the_rss_description_is_html_that_shows_the_abstracts_markup_as_text(
    client: TestClient,
) -> None:
    channel = fromstring(client.get("/feeds/daily.rss").content).find("channel")
    assert channel is not None
    item = next(i for i in channel.iter("item") if i.findtext("link", "").endswith(HOSTILE_ID))
    description = item.findtext("description", "")
    # Feeds carry the abstract as plain text: TeX's "--" is an en dash there, as in mail.
    assert html.escape(readable(MARKUP), quote=False) in description
    rendered = Rendered(description)
    assert rendered.tags == {"p"} and not rendered.comments
    assert rendered.text.startswith(readable(HOSTILE_ABSTRACT))
    reader = feedparser.parse(client.get("/feeds/daily.rss").content)
    entry = next(e for e in reader.entries if e.link.endswith(HOSTILE_ID))
    assert "&lt;b&gt;bold&lt;/b&gt;" in entry.summary and "<b>" not in entry.summary


def test_the_atom_summary_and_json_content_are_plain_text_holding_the_markup(
    client: TestClient,
) -> None:
    feed = fromstring(client.get("/feeds/daily.atom").content)
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entry = next(
        e for e in feed.iterfind("a:entry", ns) if e.findtext("a:id", "", ns).endswith(HOSTILE_ID)
    )
    summary = entry.find("a:summary", ns)
    assert summary is not None and summary.get("type") == "text"
    assert summary.text is not None and summary.text.startswith(readable(HOSTILE_ABSTRACT))
    title = entry.find("a:title", ns)
    assert title is not None and title.get("type", "text") == "text"
    items = client.get("/feeds/daily.json").json()["items"]
    item = next(i for i in items if i["url"].endswith(HOSTILE_ID))
    assert "content_html" not in item and item["content_text"].startswith(
        readable(HOSTILE_ABSTRACT)
    )


def test_category_and_topic_feeds_hold_only_their_papers(
    client: TestClient, site_settings: Settings
) -> None:
    parsed = feedparser.parse(client.get("/feeds/category/cs.CV.atom").content)
    assert parsed.entries and not parsed.bozo
    assert all("cs.CV" in [tag.term for tag in entry.tags] for entry in parsed.entries)
    topic_id, members = a_topic_of(site_settings, LAST_DAY)
    topic = feedparser.parse(client.get(f"/feeds/topic/{topic_id}.rss").content)
    assert not topic.bozo and set(members) <= set(ids_in(topic.entries))


@pytest.fixture(scope="module")
def explained(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with explained_site(tmp_path_factory.mktemp("explained")) as client:
        yield client


def test_a_feed_item_says_the_chance_and_reasons_in_the_pages_words(
    explained: TestClient,
) -> None:
    items = explained.get("/feeds/daily.json").json()["items"]
    top = next(item for item in items if item["url"].endswith(TOP))
    why = f"Rank 1, 12% chance to be featured on Hugging Face. Why: {AUTHORS}; {UPVOTES}."
    assert top["content_text"] == f"An abstract.\n\n{why}"


def validate_json_feed(body: object) -> None:
    Draft202012Validator(SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER).validate(body)


@pytest.mark.parametrize(
    ("name", "period", "key"), [("weekly", "week", WEEK), ("monthly", "month", MONTH)]
)
def test_the_weekly_and_monthly_feeds_hold_their_latest_edition_in_order(
    client: TestClient, site_settings: Settings, name: str, period: str, key: date
) -> None:
    wanted = edition_ids(site_settings, period, key)
    for fmt in ("rss", "atom"):
        parsed = feedparser.parse(client.get(f"/feeds/{name}.{fmt}").content)
        assert not parsed.bozo and parsed.version == VERSIONS[fmt]
        assert ids_in(parsed.entries) == wanted
        assert parsed.feed.link.endswith(f"/?period={period}")
    body = client.get(f"/feeds/{name}.json").json()
    validate_json_feed(body)
    assert body["feed_url"].endswith(f"/feeds/{name}.json")
    assert [item["url"].split("/papers/")[1] for item in body["items"]] == wanted


def test_every_format_names_each_papers_authors_in_order(client: TestClient) -> None:
    rss = fromstring(client.get("/feeds/daily.rss").content).find("channel")
    assert rss is not None
    item = next(i for i in rss.iter("item") if i.findtext("link", "").endswith(HOSTILE_ID))
    creators = [c.text for c in item.iter("{http://purl.org/dc/elements/1.1/}creator")]
    assert creators == HOSTILE_AUTHORS
    assert item.find("author") is None  # RSS 2.0's <author> is an email address
    for fmt in ("rss", "atom"):
        parsed = feedparser.parse(client.get(f"/feeds/daily.{fmt}").content)
        entry = next(e for e in parsed.entries if e.link.endswith(HOSTILE_ID))
        assert [a["name"] for a in entry.authors] == HOSTILE_AUTHORS
    items = client.get("/feeds/daily.json").json()["items"]
    hostile = next(i for i in items if i["url"].endswith(HOSTILE_ID))
    assert hostile["authors"] == [{"name": name} for name in HOSTILE_AUTHORS]


def test_an_author_feed_holds_that_authors_papers_newest_first(client: TestClient) -> None:
    for fmt in ("rss", "atom"):
        parsed = feedparser.parse(client.get(f"/feeds/author/jose-perez.{fmt}").content)
        assert not parsed.bozo and ids_in(parsed.entries)[0] == HOSTILE_ID
        assert parsed.feed.link.endswith("/authors/jose-perez")
    body = client.get("/feeds/author/jose-perez.json").json()
    validate_json_feed(body)
    assert body["title"] == "Paperboy author: Jose Perez"  # the name stored for the key
    assert body["items"] and all(
        "jose-perez" in {author_key(a["name"]) for a in item["authors"]} for item in body["items"]
    )
    again = client.get(
        "/feeds/author/jose-perez.atom",
        headers={"If-None-Match": client.get("/feeds/author/jose-perez.atom").headers["etag"]},
    )
    assert again.status_code == 304


def test_a_category_no_stored_paper_has_is_a_404_a_stored_one_a_feed(client: TestClient) -> None:
    missing = client.get("/feeds/category/zz.NONE.rss")
    assert missing.status_code == 404 and "zz.NONE" in missing.json()["error"]["message"]
    stored = feedparser.parse(client.get("/feeds/category/hep-th.atom").content)
    assert not stored.bozo
    assert all("hep-th" in [tag.term for tag in entry.tags] for entry in stored.entries)


def test_a_refused_category_leaves_the_kept_edition_usable(site_settings: Settings) -> None:
    """The first request of a fresh app is a 404: the edition it may have read stays usable."""
    with TestClient(create_app(site_settings)) as fresh:
        assert fresh.get("/feeds/category/zz.NONE.json").status_code == 404
        assert fresh.get("/feeds/category/cs.LG.json").status_code == 200
        assert fresh.get("/feeds/daily.json").status_code == 200


def test_unknown_feeds_and_formats_are_json_errors(client: TestClient) -> None:
    assert client.get("/feeds/topic/999999.rss").status_code == 404
    assert client.get("/feeds/author/nobody-at-all.json").status_code == 404
    assert client.get("/feeds/daily.xml").status_code == 400
    assert client.get("/feeds/category/<script>.rss").status_code == 400


def test_a_feed_reader_polling_again_gets_304(client: TestClient) -> None:
    first = client.get("/feeds/daily.atom")
    again = client.get("/feeds/daily.atom", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304


def test_an_author_page_advertises_its_feed(client: TestClient) -> None:
    page = client.get("/authors/jose-perez").text
    link = '<link rel="alternate" type="application/atom+xml"'
    assert link in page and 'href="/feeds/author/jose-perez.atom"' in page
