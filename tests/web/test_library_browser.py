"""The library in a real browser, with and without JavaScript: a list made, a paper filed
under it, marked read and noted; the page passes axe (with JavaScript, which axe runs in)."""

from __future__ import annotations

from typing import Any

import pytest

from app.core.config import Settings
from tests.web.conftest import LAST_DAY
from tests.web.helpers import edition_ids
from tests.web.test_accessibility import axe
from tests.web.test_reader_browser import SAMPLE, _card, _visit, address, sync_api

__all__ = ["address", "axe"]  # fixtures, used by name below


@pytest.mark.browser
@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_a_reader_files_marks_and_notes_a_saved_paper(
    base_url: str, browser: Any, axe: Any, site_settings: Settings, address: str, script: bool
) -> None:
    paper = edition_ids(site_settings, "day", LAST_DAY)[1]
    visit = _visit(browser, base_url, site_settings, address, script=script)
    visit.page.set_default_timeout(10_000)
    page = visit.go(f"/papers/{paper}")
    page.locator(f"article > .reader-actions[data-paper='{paper}']").get_by_role(
        "button", name="Save"
    ).click()
    page = visit.go("/reading-list")
    page.get_by_label("New list").fill("Reading group")
    page.get_by_role("button", name="Create").click()
    card = _card(page, paper)
    card.get_by_label("List").select_option(label="Reading group")
    card.get_by_role("button", name="File").click()
    _card(page, paper).get_by_role("button", name="Mark read").click()
    _card(page, paper).get_by_label("Your note (only you see it)").fill("Discuss on Friday")
    _card(page, paper).get_by_role("button", name="Keep note").click()
    page.get_by_role("link", name="Reading group").click()
    card = _card(page, paper)
    sync_api.expect(card.get_by_role("button", name="Read ✓")).to_have_attribute(
        "aria-pressed", "true"
    )
    sync_api.expect(card.get_by_label("Your note (only you see it)")).to_have_value(
        "Discuss on Friday"
    )
    if script:  # axe runs in the page: a page without JavaScript cannot run it
        found = axe.run(page, SAMPLE, {"resultTypes": ["violations"]}).response["violations"]
        assert [f"{v['id']}: {[n['target'] for n in v['nodes']]}" for v in found] == []
    assert visit.problems == []
    visit.context.close()


@pytest.mark.browser
@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_a_reader_follows_a_search_from_its_page_and_finds_it_on_for_you(
    base_url: str, browser: Any, axe: Any, site_settings: Settings, address: str, script: bool
) -> None:
    visit = _visit(browser, base_url, site_settings, address, script=script)
    visit.page.set_default_timeout(10_000)
    page = visit.go("/search?q=video+diffusion")
    page.get_by_role("button", name="Follow in my digest").click()
    page.wait_for_url(f"{base_url}/search?q=video+diffusion")  # back where it was pressed
    page = visit.go("/for-you")
    searches = page.locator("#saved-searches")
    sync_api.expect(searches.get_by_role("link", name="video diffusion")).to_be_visible()
    sync_api.expect(searches.get_by_role("link", name="RSS")).to_have_attribute(
        "href", "/search/feed.rss?q=video+diffusion"
    )
    if script:
        found = axe.run(page, SAMPLE, {"resultTypes": ["violations"]}).response["violations"]
        assert [f"{v['id']}: {[n['target'] for n in v['nodes']]}" for v in found] == []
    searches.get_by_role("button", name="Stop following").click()
    page.wait_for_url(f"{base_url}/for-you")
    sync_api.expect(page.locator("#saved-searches")).to_have_count(0)
    assert visit.problems == []
    visit.context.close()
