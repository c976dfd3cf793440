"""The radar's flags as the site shows them: ``/emerging`` and its feed on a store with a
planted riser, ranked and flagged as the daily job does. (Not under tests/web: those share one
filled site, and this store is its own.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import feedparser
import pytest
from fastapi.testclient import TestClient

from app.cli.main import main
from app.core.config import Settings
from app.services.emerging import flag_week
from app.web.app import create_app
from tests.conftest import Database
from tests.ranking.planted_radar import FLAGGED_WEEK, HOSTILE, plant
from tests.servers import served
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS


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
@pytest.mark.parametrize("scripts", [True, False], ids=["with-javascript", "without-javascript"])
def test_the_flagged_page_passes_axe_in_both_themes(planted: Settings, scripts: bool) -> None:
    sync_api: Any = pytest.importorskip("playwright.sync_api")
    axe: Any = pytest.importorskip("axe_playwright_python.sync_playwright").Axe()
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is missing (apt-get install chromium)")
    with served(create_app(planted)) as url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            found = {
                scheme: _violations(browser, axe, f"{url}/emerging", scheme, scripts)
                for scheme in ("light", "dark")
            }
        finally:
            browser.close()
    assert found == {"light": [], "dark": []}


def _violations(browser: Any, axe: Any, url: str, scheme: str, scripts: bool) -> list[str]:
    """All of axe's rules in the light theme, colour contrast in the dark one. Without
    scripts, the page's own are refused (axe itself runs as a script, so the browser keeps
    them on)."""
    context = browser.new_context(color_scheme=scheme)
    try:
        if not scripts:
            context.route("**/*.js", lambda route: route.abort())
        page = context.new_page()
        page.goto(url)
        options: dict[str, Any] = {"resultTypes": ["violations"]}
        if scheme == "dark":
            options["runOnly"] = ["color-contrast"]
        violations = axe.run(page, None, options).response["violations"]
    finally:
        context.close()
    return sorted(f"{v['id']}: {n['target']}" for v in violations for n in v["nodes"])
