"""An organization's page and feeds: the papers submitted to Hugging Face's daily page under
it, its topics month by month, and a 404 for a name nothing was submitted under."""

from __future__ import annotations

import re

import feedparser
from fastapi.testclient import TestClient

from tests.web.conftest import HF_PAPER

ORGANIZATION = "/organizations/ByteDance-Seed"


def test_an_organization_page_lists_its_papers_topics_and_feeds(client: TestClient) -> None:
    page = client.get(ORGANIZATION)
    assert page.status_code == 200
    html = page.text
    assert '<h1 class="bidi">ByteDance Seed</h1>' in html
    assert f'id="p-{HF_PAPER}"' in html
    assert "1 paper submitted under it" in html
    assert '<a href="https://huggingface.co/ByteDance-Seed" rel="noopener">' in html
    month = re.search(r"<td>December 2025</td>\s*<td class=\"num\">1</td>", html)
    assert month is not None
    assert re.search(r'<a class="chip" href="/topics/\d+">[^<]+ \(1\)</a>', html)
    for fmt in ("atom", "rss", "json"):
        assert f'href="/feeds/organization/ByteDance-Seed.{fmt}"' in html


def test_an_organizations_feed_holds_its_papers(client: TestClient) -> None:
    answer = client.get("/feeds/organization/ByteDance-Seed.atom")
    assert answer.status_code == 200
    feed = feedparser.parse(answer.content)
    assert not feed.bozo
    assert feed.feed.title == "Paperboy organization: ByteDance Seed"
    assert [entry.link.rsplit("/", 1)[-1] for entry in feed.entries] == [HF_PAPER]
    again = client.get(
        "/feeds/organization/ByteDance-Seed.atom", headers={"if-none-match": answer.headers["etag"]}
    )
    assert again.status_code == 304


def test_a_name_nothing_was_submitted_under_is_not_found(client: TestClient) -> None:
    assert client.get("/organizations/Nobody-Here").status_code == 404
    assert client.get("/feeds/organization/Nobody-Here.atom").status_code == 404
    hostile = client.get("/organizations/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    assert hostile.status_code == 404 and "<script>alert" not in hostile.text
