"""The site in a real browser: Debian's chromium driven by Playwright.

Skipped, with the reason, where Playwright or /usr/bin/chromium is missing (`.ci/run` installs
both: `apt-get install chromium` and `pip install playwright`). The screenshots in ``docs/``
come from the demo instead: ``benchmarks/screenshots.py``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from accounts import signin
from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.web.page_views import PAPERS_PER_PAGE
from app.web.routes.voting import SESSION_COOKIE
from tests.web.conftest import CHROMIUM, HOSTILE_ID

sync_api: Any = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install playwright)"
)
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian chromium is missing (apt-get install chromium)"
)


def _page(browser: Any, width: int, height: int) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": width, "height": height})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    return page, problems


def test_browse_open_a_paper_search_go_dark_and_filter_by_topic(
    base_url: str, browser: Any, tmp_path: Path
) -> None:
    page, problems = _page(browser, 1280, 900)
    page.goto(f"{base_url}/")
    assert page.locator("ol.papers li.paper").count() == PAPERS_PER_PAGE
    page.locator("ol.papers li.paper .title a").first.click()
    page.wait_for_url("**/papers/**")
    assert page.locator("h2", has_text="Abstract").is_visible()
    page.goto(f"{base_url}/search")
    page.fill("#q", "video diffusion animation")
    page.press("#q", "Enter")
    page.wait_for_url("**/search?q=*")
    assert page.locator("ol.papers li.paper").count() > 0
    page.goto(f"{base_url}/")
    page.click("#theme-toggle")
    assert page.evaluate("document.documentElement.dataset.theme") in ("dark", "light")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.reload()  # the choice is remembered
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == background
    page.locator("details.filters summary").click()
    topic = page.locator("#topic-filter option").nth(1).get_attribute("value")
    page.select_option("#topic-filter", topic)  # submits on change
    page.wait_for_url(f"**topic={topic}*")
    assert 0 < page.locator("ol.papers li.paper").count() <= PAPERS_PER_PAGE
    assert problems == []


def test_latex_is_rendered_and_broken_latex_stays_readable(base_url: str, browser: Any) -> None:
    page, problems = _page(browser, 1280, 900)
    page.goto(f"{base_url}/papers/2512.13713")  # "odd cycle graphs ($C_3, C_5, C_{11}$)"
    assert page.locator(".abstract .katex").count() >= 1
    page.goto(f"{base_url}/papers/{HOSTILE_ID}")
    assert "unbalanced" in page.locator(".abstract").inner_text()
    # Its one image may be the thumbnail Paperboy serves; the abstract's TeX makes none.
    script = "window.__pwned === undefined && document.querySelectorAll('img:not(.thumb)').length"
    assert page.evaluate(script) == 0
    assert problems == []
    page.close()


# The pages a reader sees first, at both widths.
SHOTS = {
    "trending": "/",
    "trending-week": "/?period=week",
    "search": "/search?q=video+diffusion",
    "topics": "/topics",
}


@pytest.mark.parametrize("name", SHOTS)
def test_the_reader_s_pages_fit_desktop_and_phone_widths(
    name: str, base_url: str, browser: Any, tmp_path: Path
) -> None:
    for width_name, width, height in (("desktop", 1280, 900), ("phone", 390, 844)):
        page, problems = _page(browser, width, height)
        page.goto(f"{base_url}{SHOTS[name]}")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot = tmp_path / f"{name}-{width_name}.png"
        page.screenshot(path=str(shot))
        assert problems == []
        page.close()


def test_the_numbers_behind_a_papers_place_open_without_javascript(
    base_url: str, browser: Any
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{base_url}/")
    page.locator("ol.papers li.paper .title a").first.click()
    page.wait_for_url("**/papers/**")
    numbers = page.locator("table.editions details.why").first
    assert not numbers.locator("table").first.is_visible()
    numbers.locator("summary").click()
    assert numbers.locator("table").first.is_visible()
    assert numbers.locator("tfoot").inner_text().startswith("Score")
    context.close()


def test_a_reader_votes_from_the_trending_page_and_takes_it_back(
    base_url: str, browser: Any, site_settings: Settings
) -> None:
    page, _ = _page(browser, 1280, 900)
    page.goto(f"{base_url}/")
    page.locator("ol.papers li.paper a.vote").first.click()
    page.wait_for_url("**/signin")  # not signed in: the vote leads to the sign-in page
    page.close()
    page, problems = _page(browser, 1280, 900)
    page.context.add_cookies(
        [{"name": SESSION_COOKIE, "value": _signed_in(site_settings), "url": base_url}]
    )
    page.goto(f"{base_url}/")
    control = page.locator("ol.papers li.paper a.vote").first
    count = control.locator(".vote-count")
    before = int(count.inner_text())
    control.click()
    sync_api.expect(control).to_have_attribute("aria-pressed", "true")
    assert int(count.inner_text()) == before + 1
    control.click()
    sync_api.expect(control).to_have_attribute("aria-pressed", "false")
    assert int(count.inner_text()) == before
    assert problems == []
    page.close()


def _signed_in(settings: Settings) -> str:
    """The session cookie a reader gets by pressing "Sign in" in their sign-in link's page."""
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as session:
        return signin.session_token(settings, session, "ada@example.org", datetime.now(UTC))


def test_the_api_docs_load_offline_under_the_strict_policy(base_url: str, browser: Any) -> None:
    page, problems = _page(browser, 1280, 900)
    outside: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(base_url) else outside.append(r.url))
    page.goto(f"{base_url}/api/docs")
    page.wait_for_selector(".opblock-tag", timeout=15_000)  # Swagger UI drew the operations
    assert page.locator(".opblock", has_text="/api/daily_papers").count() >= 1
    assert problems == [] and outside == []
    page.close()
