"""The under-the-radar page and feed on the sample: Hugging Face's one record does not reach
far enough past any sample day to judge what the crowd missed, and the page says so."""

from __future__ import annotations

import feedparser
from fastapi.testclient import TestClient


def test_the_sample_has_nothing_to_judge_yet_and_says_why(client: TestClient) -> None:
    page = client.get("/under-the-radar").text
    assert "Nothing to judge yet: the papers the crowd missed are known once" in page
    feed = feedparser.parse(client.get("/feeds/under-the-radar.atom").content)
    assert not feed.bozo and feed.feed.title == "Paperboy: under the radar" and not feed.entries


def test_a_week_of_the_sample_names_no_paper_and_a_bad_week_is_refused(
    client: TestClient,
) -> None:
    page = client.get("/under-the-radar?week=2025-W51").text
    assert "Under the radar: week of 15 Dec 2025" in page
    assert "Hugging Face's records reach only papers announced by 16 Dec 2025" in page
    assert "<strong>Too few days to judge</strong>" in page  # the sample starts that week
    assert "<code>docs/benchmarks.md#f-under-radar</code>" in page
    assert client.get("/under-the-radar?week=x").status_code == 400
