"""The first screen of the trending page shows a paper, on a phone and on a laptop, in a
real browser. Skipped where Playwright or chromium is missing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import CHROMIUM

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian chromium is missing (apt-get install chromium)"
)


@pytest.mark.parametrize(("width", "height"), [(375, 812), (1280, 800)])
def test_the_first_papers_title_is_on_the_first_screen(
    base_url: str, browser: Any, width: int, height: int
) -> None:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(f"{base_url}/")
    title = page.locator("ol.papers li.paper .title").first.bounding_box()
    assert title is not None
    assert title["y"] + title["height"] <= height, title
    page.close()


def test_the_filters_open_and_filter_without_javascript(base_url: str, browser: Any) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{base_url}/")
    category = page.locator("details.filters select[name=category]")
    assert not category.is_visible()
    page.locator("details.filters summary").click()
    chosen = category.locator("option").nth(1).get_attribute("value")
    category.select_option(chosen)
    page.locator("details.filters button[type=submit]").click()
    page.wait_for_url(f"**category={chosen}**")
    assert page.locator("details.filters").get_attribute("open") is not None
    context.close()
