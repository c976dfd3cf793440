"""The public scorecard page and its feed, on the sample's ranked days."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import feedparser
from fastapi.testclient import TestClient

from app.web.accuracy import MIN_SCORECARD_DAYS, MIN_SCORECARD_FEATURED
from tests.web.conftest import HF_PAPER

SVG = "{http://www.w3.org/2000/svg}"


def _charts(page: str) -> list[ET.Element]:
    return [
        ET.fromstring(found.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1))
        for found in re.findall(r'<svg class="chart".*?</svg>', page, re.S)
    ]


def test_the_scorecard_names_the_model_and_marks_days_it_was_trained_on(
    client: TestClient,
) -> None:
    answer = client.get("/accuracy")
    assert answer.status_code == 200
    page = answer.text
    assert "<code>trending-blend-2026-01-01-a3d8205e</code>" in page
    # The sample's one day with Hugging Face's pick in: inside the model's training period.
    row = re.search(r'<tr id="day-2025-12-17">(.*?)</tr>', page, re.S)
    assert row is not None and "inside the training period" in row.group(1)
    assert "No day after it has Hugging Face" in page
    # One day is too few to judge: no bare Brier skill, but the notice and the recorded figure.
    assert not re.search(r"<strong>Brier skill -?\d\.\d{3}</strong>", page)
    assert "<strong>too few to judge</strong>" in page
    assert f"at least\n  {MIN_SCORECARD_DAYS} days and {MIN_SCORECARD_FEATURED} featured" in page
    assert "<code>docs/benchmarks.md#f-scorecard</code>" in page


def test_each_chart_is_an_svg_picture_beside_a_table_saying_the_same(client: TestClient) -> None:
    page = client.get("/accuracy").text
    reliability, weeks = _charts(page)
    assert reliability.get("role") == "img" and reliability.find(f"{SVG}title") is not None
    dots = reliability.findall(f"{SVG}circle")
    # Tenths of the day's 176 papers, merged where their chances read the same.
    rows = re.findall(r"<tr><td>([\d.]+%(?: to [\d.]+%)?)</td>", page)
    assert len(dots) == len(rows) and 1 < len(rows) <= 10
    assert len(set(rows)) == len(rows)
    assert not any(low == high for low, _, high in (row.partition(" to ") for row in rows))
    assert len(weeks.findall(f"{SVG}circle")) == 1


def test_the_featured_paper_is_among_the_calls_with_what_paperboy_said(client: TestClient) -> None:
    page = client.get("/accuracy").text
    hits = re.search(r"<h2>Biggest hits[^<]*</h2>\s*<ol>(.*?)</ol>", page, re.S)
    assert hits is not None and f'href="/papers/{HF_PAPER}"' in hits.group(1)
    said = re.sub(r"<[^>]+>", "", hits.group(1))
    assert "chance to be featured on Hugging Face; featured." in said


def test_the_feed_has_an_entry_per_scored_day_with_its_dates(client: TestClient) -> None:
    answer = client.get("/feeds/accuracy.atom")
    feed = feedparser.parse(answer.content)
    assert not feed.bozo and feed.feed.title == "Paperboy: were we right?"
    (entry,) = feed.entries
    assert entry.title.startswith("17 Dec 2025: Brier skill ")
    assert entry.published == entry.updated == "2025-12-17T00:00:00Z"
    again = client.get("/feeds/accuracy.atom", headers={"if-none-match": answer.headers["etag"]})
    assert again.status_code == 304
