"""The emerging-topic radar's page and feed on the sample, too short for a baseline (a store
with flags: tests/ranking/test_emerging_site.py)."""

from __future__ import annotations

import feedparser
from fastapi.testclient import TestClient


def test_the_sample_s_three_days_are_too_short_for_a_baseline_and_the_page_says_so(
    client: TestClient,
) -> None:
    page = client.get("/emerging").text
    assert "<strong>Too few weeks to judge</strong>: the radar compares 4 recent weeks" in page
    assert "<code>docs/benchmarks.md#f-emerging</code>" in page
    assert "this site holds embedded papers from 2025-12-17 to 2025-12-19" in page
    feed = feedparser.parse(client.get("/feeds/emerging.atom").content)
    assert not feed.bozo and feed.feed.title == "Paperboy: emerging topics" and not feed.entries


def test_a_week_that_is_not_an_iso_week_is_refused(client: TestClient) -> None:
    answer = client.get("/emerging?week=2026-13")
    assert answer.status_code == 400 and "YYYY-Www" in answer.text


def test_a_week_whose_window_would_start_before_the_year_one_is_refused(
    client: TestClient,
) -> None:
    answer = client.get("/emerging?week=0001-W03")
    assert answer.status_code == 400 and "before the year 1" in answer.text
