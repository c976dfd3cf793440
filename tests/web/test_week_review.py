"""The week in review on the sample's week: its topics, what was predicted and featured,
every sentence linked, and the same bytes when the week is written up again."""

from __future__ import annotations

import re

import feedparser
from fastapi.testclient import TestClient

from app.cli.main import main
from app.core.config import Settings
from tests.web.conftest import HF_PAPER, LAST_DAY

WEEK = "2025-W51"


def test_the_sample_s_week_names_its_topics_and_the_featured_paper(client: TestClient) -> None:
    answer = client.get("/week-in-review")
    assert answer.status_code == 200
    page = answer.text
    assert "The week in review: 15 Dec to 21 Dec 2025" in page
    sections = re.findall(r'<section class="review-topic".*?</section>', page, re.S)
    assert 1 <= len(sections) <= 10
    # The sample's weeks before are not stored: every topic is new to the review.
    assert all('New this week: <a href="/topics/' in section for section in sections)
    featured = [s for s in sections if f'href="/papers/{HF_PAPER}"' in s and "upvotes)" in s]
    assert featured and "(42 upvotes)" in featured[0]
    assert "Hugging Face featured 1 of them,\n  1 in the" in page


def test_every_sentence_of_a_topic_links_to_what_it_rests_on(client: TestClient) -> None:
    page = client.get(f"/week-in-review?week={WEEK}").text
    for section in re.findall(r'<section class="review-topic".*?</section>', page, re.S):
        for sentence in re.findall(r"<p>(.*?)</p>", section, re.S):
            assert "<a href=" in sentence, sentence


def test_writing_the_week_again_gives_the_same_bytes(
    client: TestClient, site_settings: Settings
) -> None:
    before = client.get(f"/week-in-review?week={WEEK}").content
    assert main(["week-review", "--date", LAST_DAY.isoformat()], site_settings) == 0
    assert client.get(f"/week-in-review?week={WEEK}").content == before


def test_the_feed_has_the_week_and_a_week_never_written_says_so(client: TestClient) -> None:
    feed = feedparser.parse(client.get("/feeds/week-in-review.atom").content)
    assert not feed.bozo and len(feed.entries) == 1
    (entry,) = feed.entries
    assert entry.title == "The week of 15 Dec 2025 in review"
    assert entry.link.endswith(f"/week-in-review?week={WEEK}")
    assert entry.published == "2025-12-22T00:00:00Z"
    empty = client.get("/week-in-review?week=2025-W40").text
    assert "No week has been written up yet for the week of 29 Sep 2025" in empty
    assert client.get("/week-in-review?week=W40").status_code == 400
