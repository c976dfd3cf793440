"""The subscribe and preferences forms in a real browser (Debian's chromium, Playwright), at a
phone's and a desktop's width, with and without JavaScript.

Skipped where Playwright or /usr/bin/chromium is missing, as ``test_browser.py`` is. The
screenshots in ``docs/`` come from the demo: ``benchmarks/screenshots.py``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from accounts import links
from accounts.addresses import parse_address
from accounts.preferences import parse_preferences
from accounts.subscriptions import confirm, request_subscription
from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from tests.web.conftest import CHROMIUM

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is missing")
PHONE, DESKTOP = (375, 812), (1280, 900)
TOUCH = 44  # CSS pixels: the least height of an input or a box's label
# What a reader types or sees in every text input, select and textarea of the forms.
CONTROLS = (
    ".account-form input:not([type=hidden]):not([type=checkbox]),"
    " .account-form select, .account-form textarea"
)


def _open(browser: Any, size: tuple[int, int], *, script: bool = True) -> tuple[Any, list[str]]:
    """A page in Tokyo's time zone; the console's errors (a refused script among them) kept."""
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]},
        timezone_id="Asia/Tokyo",
        java_script_enabled=script,
    )
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    return page, problems


def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return dict(box)


def _shoot(page: Any, name: str, tmp_path: Path) -> None:
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=True)


def _assert_laid_out_for_touch(page: Any, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    heights = page.eval_on_selector_all(
        CONTROLS, "els => els.map(e => e.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= TOUCH
    boxes = page.eval_on_selector_all(
        "label.check", "els => els.map(e => e.getBoundingClientRect().height)"
    )
    assert boxes and min(boxes) >= TOUCH
    label, field = _box(page, "label[for=delivery_hour]"), _box(page, "#delivery_hour")
    assert label["y"] + label["height"] <= field["y"]  # the label above its input


def test_the_subscribe_form_on_a_phone_is_one_column_and_preselects_the_readers_zone(
    base_url: str, browser: Any, tmp_path: Path
) -> None:
    page, problems = _open(browser, PHONE)
    page.goto(f"{base_url}/subscribe")
    page.click("details.more-choices > summary")
    _assert_laid_out_for_touch(page, PHONE[0])
    hour, zone = _box(page, "#delivery_hour"), _box(page, "#time_zone")
    assert zone["y"] >= hour["y"] + hour["height"]  # one column: the zone under the hour
    assert page.input_value("#time_zone") == "Asia/Tokyo"
    _shoot(page, "subscribe-phone.png", tmp_path)
    assert problems == []  # the script ran under the strict CSP, nothing refused


def test_without_javascript_the_zone_stays_utc_and_errors_come_back_beside_their_fields(
    base_url: str, browser: Any
) -> None:
    page, problems = _open(browser, PHONE, script=False)
    page.goto(f"{base_url}/subscribe")
    assert page.input_value("#time_zone") == "UTC"
    page.fill("#email", "forms-no-js@example.org")
    page.click("details.more-choices > summary")
    page.fill("input[name=followed_authors] >> nth=0", "Nobody We Know")
    page.select_option("#time_zone", "America/New_York")
    page.click("button[type=submit]")
    page.wait_for_selector(".error-summary")
    error = page.locator("#error-followed_authors")
    assert "Nobody We Know" in error.inner_text()
    described = page.locator("input[name=followed_authors]").first.get_attribute("aria-describedby")
    assert described == "error-followed_authors"
    assert page.input_value("#email") == "forms-no-js@example.org"
    assert page.input_value("#time_zone") == "America/New_York"  # kept, not guessed again
    assert [text for text in problems if "status of 422" not in text] == []


def test_the_preferences_form_on_a_desktop_saves_a_topic_chosen_by_its_name(
    base_url: str, browser: Any, site_settings: Settings, tmp_path: Path
) -> None:
    page, problems = _open(browser, DESKTOP)
    page.goto(f"{base_url}/subscriptions/preferences?token={_preferences_token(site_settings)}")
    _assert_laid_out_for_touch(page, DESKTOP[0])
    hour, zone = _box(page, "#delivery_hour"), _box(page, "#time_zone")
    assert zone["y"] == hour["y"] and zone["x"] > hour["x"]  # side by side on a wide screen
    assert page.input_value("#time_zone") == "Europe/Paris"  # a stored choice is never guessed
    label = page.locator("#topic-suggestions option").first.get_attribute("value")
    page.fill("input[name=followed_topics] >> nth=0", label)
    page.fill("input[name=followed_authors] >> nth=0", "José Pérez")
    _shoot(page, "preferences-desktop.png", tmp_path)
    page.click("button[value=save]")
    page.wait_for_selector("text=Your preferences are saved.")
    assert problems == []


def _preferences_token(settings: Settings) -> str:
    """A confirmed reader in Paris, and their preferences link's token."""
    now, address = datetime.now(UTC), parse_address("forms@example.org")
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as session:
        chosen = parse_preferences({"time_zone": "Europe/Paris"}, settings.categories)
        reader = request_subscription(session, settings, address, chosen, "forms", now)
        assert reader is not None
        confirm(session, settings, links.confirm_url(settings, reader, now).split("token=")[1], now)
        return links.preferences_url(settings, reader, now).split("token=", 1)[1]
