"""Following an organization in a real browser, with and without JavaScript: on its page the
pressed button reads as its undo, a line says so and the count moves; a card's button follows
it too (marked in place with the script, listed on "For you" either way), under the strict CSP.
Skipped where Playwright or chromium is missing."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from app.core.config import Settings
from tests.web.conftest import CHROMIUM, HF_PAPER
from tests.web.test_follow_state import QUERY
from tests.web.test_reader_browser import _card, _opened, _visit, address

__all__ = ["address"]  # the signed-in reader's mailbox fixture, used by name below

sync_api: Any = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is missing")


@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_following_an_organization_shows_its_undo_a_line_saying_so_and_the_new_count(
    base_url: str, browser: Any, site_settings: Settings, address: str, script: bool
) -> None:
    visit = _visit(browser, base_url, site_settings, address, script=script)
    page = visit.go("/organizations/ByteDance-Seed")
    count = page.locator("[data-followers]")
    before = int(count.get_attribute("data-followers"))
    said = page.locator("[data-stance-said]")
    page.get_by_role("button", name="Follow this organization", exact=True).click()
    unfollow = page.get_by_role("button", name="Unfollow this organization", exact=True)
    sync_api.expect(unfollow).to_have_attribute("aria-pressed", "true")
    sync_api.expect(said).to_have_text("✓ You follow this organization.")
    sync_api.expect(count).to_have_attribute("data-followers", str(before + 1))
    readers = "1 reader follows" if before == 0 else f"{before + 1} readers follow"
    sync_api.expect(count).to_have_text(readers)
    unfollow.click()
    follow = page.get_by_role("button", name="Follow this organization", exact=True)
    sync_api.expect(follow).to_have_attribute("aria-pressed", "false")
    sync_api.expect(said).to_have_text("")
    sync_api.expect(count).to_have_attribute("data-followers", str(before))
    assert visit.problems == []
    visit.context.close()


@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_a_cards_organization_button_follows_it(
    base_url: str, browser: Any, site_settings: Settings, address: str, script: bool
) -> None:
    visit = _visit(browser, base_url, site_settings, address, script=script)
    page = visit.go(f"/search?q={quote(QUERY)}")
    card = _opened(_card(page, HF_PAPER))
    card.get_by_role("button", name="Follow ByteDance Seed", exact=True).click()
    if script:  # in place, no new page
        pressed = card.get_by_role("button", name="Unfollow ByteDance Seed", exact=True)
        sync_api.expect(pressed).to_have_attribute("aria-pressed", "true")
    page = visit.go("/for-you")
    listed = page.get_by_role("heading", name="Organizations you follow", exact=True)
    sync_api.expect(listed).to_have_count(1)
    page.locator("ul.follows").get_by_role("button", name="Unfollow").click()
    sync_api.expect(listed).to_have_count(0)
    assert visit.problems == []
    visit.context.close()
