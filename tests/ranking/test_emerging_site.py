"""The radar's flags as the site shows them: ``/emerging`` and its feed on a store with a
planted riser, ranked and flagged as the daily job does. (Not under tests/web: those share one
filled site, and this store is its own.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import feedparser
import pytest
from fastapi.testclient import TestClient

from app.cli.main import main
from app.core.config import Settings
from app.services.daily import flag_week
from app.web.app import create_app
from tests.conftest import Database
from tests.ranking.axe_check import audited
from tests.ranking.planted_radar import FLAGGED_WEEK, HOSTILE, plant


@pytest.fixture
def planted(database: Database, tmp_path: Path) -> Settings:
    """The planted store, its last day ranked and its week flagged."""
    plant(database, tmp_path)
    last_day = FLAGGED_WEEK + timedelta(days=4)
    assert main(["rank", "--date", last_day.isoformat()], database.settings) == 0
    flag_week(database.settings, database.sessions, last_day)
    return database.settings


@pytest.fixture
def planted_site(planted: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(planted)) as site:
        yield site


def test_a_flagged_subject_shows_its_rise_papers_new_phrases_and_topic_to_follow(
    planted_site: TestClient,
) -> None:
    answer = planted_site.get("/emerging")
    assert answer.status_code == 200
    page = answer.text
    first = re.search(r'<section class="emerging" id="emerging-1".*?</section>', page, re.S)
    assert first is not None
    card = first.group(0)
    assert "none in the 8 weeks before" in card
    assert "<q>quantum origami folding</q>" in card
    assert "Papers a week from 05 Jan 2026: 0, 0, 0, 0, 0, 0, 0, 0, " in card
    assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in card
    topic = re.search(r'href="/topics/(\d+)"', card)
    assert topic is not None
    assert f'action="/topics/{topic.group(1)}/follow"' in card
    same = planted_site.get(f"/emerging?week={FLAGGED_WEEK.isocalendar()[0]}-W13").text
    assert same == page
    assert "Too few weeks to judge" not in page  # twelve weeks stored: the baseline is whole


def test_a_week_whose_baseline_the_store_does_not_hold_says_so_and_links_the_figure(
    planted_site: TestClient,
) -> None:
    page = planted_site.get("/emerging?week=2026-W05").text
    assert "<strong>Too few weeks to judge</strong>: the radar compares 4 recent weeks" in page
    assert "this site holds embedded papers from 2026-01-05" in page
    assert "<code>docs/benchmarks.md#f-emerging</code>" in page
    assert '<section class="emerging"' not in page


def test_the_feed_has_an_entry_per_flag_linking_to_its_card(planted_site: TestClient) -> None:
    answer = planted_site.get("/feeds/emerging.atom")
    feed = feedparser.parse(answer.content)
    assert not feed.bozo and feed.entries
    entry = feed.entries[0]
    assert entry.link.endswith("/emerging?week=2026-W13#emerging-1")
    assert entry.title.startswith("Week of 23 Mar 2026: ")
    assert "quantum origami folding" in entry.summary
    assert entry.published == "2026-03-23T00:00:00Z"
    assert "/emerging/2026-W13/26" in entry.id  # the week and the first paper's id


@pytest.mark.browser
def test_the_flagged_page_passes_axe_in_both_themes_and_without_scripts(
    planted: Settings,
) -> None:
    assert audited(planted, "/emerging") == {"light": [], "dark": [], "no-scripts": []}
