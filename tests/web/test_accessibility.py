"""Every kind of page passes axe-core's checks in a real browser: all rules in the light theme,
colour contrast again in the dark one.

axe-core comes bundled with axe-playwright-python; the browser is Debian's chromium, as in
test_browser.py. Skipped where either is missing. A page whose remaining violations sit in a
file this test's owner does not edit is marked ``xfail(strict=True)`` with the violations it
expects, so that it turns red, and its marker goes, once they are fixed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import Engine

from accounts import links
from accounts.addresses import parse_address
from accounts.preferences import parse_preferences
from accounts.subscriptions import confirm, request_subscription
from app.core.config import Settings
from app.core.db import make_session_factory, session_scope
from benchmarks.pages import PAGES
from tests.web.conftest import CHROMIUM, HF_PAPER, LAST_DAY
from tests.web.helpers import a_topic_of

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
axe_playwright: Any = pytest.importorskip(
    "axe_playwright_python.sync_playwright", reason="axe-playwright-python is not installed"
)
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian chromium is missing (apt-get install chromium)"
)

# A list of cards repeats one macro: its first five stand for the rest, and checking a hundred
# would take axe tens of seconds a page.
SAMPLE = {"exclude": ["ol.papers > li:nth-child(n+6)"]}
# Violations left in files other engineers own: page -> what axe reports and where to fix it.
KNOWN: dict[str, str] = {}
KNOWN_DARK: dict[str, str] = {}


def _pages(known: dict[str, str]) -> list[Any]:
    return [
        pytest.param(name, marks=[pytest.mark.xfail(strict=True, reason=known[name])])
        if name in known
        else name
        for name in PAGES
    ]


@pytest.fixture(scope="module")
def axe() -> Any:
    return axe_playwright.Axe()


@pytest.fixture(scope="module")
def urls(base_url: str, site_settings: Settings, migrated_engine: Engine) -> dict[str, str]:
    topic, _ = a_topic_of(site_settings, LAST_DAY)
    token = _preferences_token(site_settings, migrated_engine)
    fill = {
        "paper": HF_PAPER,
        "topic": topic,
        "author": "jose-perez",
        "organization": "ByteDance-Seed",
        "token": token,
    }
    return {name: base_url + path.format(**fill) for name, path in PAGES.items()}


def _preferences_token(settings: Settings, engine: Engine) -> str:
    """A confirmed subscriber's preferences link, as their digest carries it."""
    now, address = datetime.now(UTC), parse_address("axe@example.org")
    with session_scope(make_session_factory(engine)) as session:
        choice = parse_preferences({}, settings.categories)
        reader = request_subscription(session, settings, address, choice, "axe", now)
        assert reader is not None
        confirming = links.subscriber_token(settings, links.CONFIRM, reader, now)
        confirm(session, settings, confirming, now)
        return links.subscriber_token(settings, links.PREFERENCES, reader, now)


# Pages drawn by a script after they load: axe waits for what the script draws.
DRAWN = {"/api/docs": "#operations-tag-api"}


def violations(
    browser: Any, axe: Any, url: str, scheme: str, rules: list[str] | None, scripts: bool = True
) -> list[str]:
    """axe's violations on ``url`` in colour ``scheme``, one line per rule and element;
    without ``scripts`` the page's own are refused (axe itself still runs)."""
    context = browser.new_context(color_scheme=scheme)
    try:
        if not scripts:
            context.route("**/*.js", lambda route: route.abort())
        page = context.new_page()
        page.goto(url)
        drawn = next((selector for path, selector in DRAWN.items() if url.endswith(path)), None)
        if drawn is not None:
            page.wait_for_selector(drawn)
        options: dict[str, Any] = {"resultTypes": ["violations"]}
        if rules:
            options["runOnly"] = rules
        found = axe.run(page, SAMPLE, options).response["violations"]
    finally:
        context.close()
    return sorted(f"{v['id']} ({v['impact']}): {n['target']}" for v in found for n in v["nodes"])


@pytest.mark.parametrize("name", _pages(KNOWN))
def test_every_page_passes_axe_in_the_light_theme(
    name: str, urls: dict[str, str], browser: Any, axe: Any
) -> None:
    assert violations(browser, axe, urls[name], "light", None) == []


@pytest.mark.parametrize("name", _pages(KNOWN_DARK))
def test_every_page_has_enough_contrast_in_the_dark_theme(
    name: str, urls: dict[str, str], browser: Any, axe: Any
) -> None:
    assert violations(browser, axe, urls[name], "dark", ["color-contrast"]) == []


# Pages that draw their charts and text on the server: they must read whole without scripts.
WITHOUT_SCRIPTS = ["accuracy", "emerging", "week-in-review", "under-the-radar"]


@pytest.mark.parametrize("name", WITHOUT_SCRIPTS)
def test_server_drawn_pages_pass_axe_without_their_scripts(
    name: str, urls: dict[str, str], browser: Any, axe: Any
) -> None:
    assert violations(browser, axe, urls[name], "light", None, scripts=False) == []
