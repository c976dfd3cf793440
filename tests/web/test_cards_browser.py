"""Paper cards in a real browser: TeX in titles and abstracts renders under the strict CSP,
"More" opens a card and "more" the rest of its abstract without JavaScript, and chips and
links are targets of at least 24 by 24 pixels (WCAG 2.2, 2.5.8). Skipped where Playwright or
chromium is missing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import CHROMIUM

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian chromium is missing (apt-get install chromium)"
)
TARGETS = "ol.papers li.paper :is(.chip, .links a, a.vote, details summary)"


def test_tex_in_cards_renders_with_the_bundled_katex_and_no_policy_error(
    base_url: str, browser: Any
) -> None:
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(f"{base_url}/")
    page.wait_for_function("document.documentElement.dataset.math === 'rendered'")
    assert page.locator("ol.papers li.paper .summary .katex").count() >= 1
    assert problems == []
    page.close()


def test_a_page_without_tex_never_loads_katex(base_url: str, browser: Any) -> None:
    page = browser.new_page()
    loaded: list[str] = []
    page.on("request", lambda request: loaded.append(request.url))
    page.goto(f"{base_url}/privacy")
    page.wait_for_load_state("networkidle")
    assert not [url for url in loaded if "katex" in url]
    page.close()


def test_more_opens_the_rest_of_an_abstract_without_javascript(base_url: str, browser: Any) -> None:
    context = browser.new_context(java_script_enabled=False)
    more = context.new_page()
    more.goto(f"{base_url}/")
    card = more.locator("ol.papers li.paper details.card-more").first
    assert not card.locator(".summary").is_visible()  # the card folds its abstract too
    card.locator("> summary").click()
    folded = card.locator(".summary details.more")
    assert not folded.locator("p").is_visible()
    folded.locator("summary").click()
    assert folded.locator("p").is_visible()
    context.close()


def test_chips_links_and_controls_in_cards_are_at_least_24_pixels(
    base_url: str, browser: Any
) -> None:
    for width in (1280, 390):
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(f"{base_url}/")
        page.eval_on_selector_all("details.card-more", "els => els.forEach(e => e.open = true)")
        sizes = page.eval_on_selector_all(
            TARGETS,
            "els => els.map(e => { const r = e.getBoundingClientRect();"
            " return [e.textContent.trim().slice(0, 30), r.width, r.height]; })",
        )
        assert len(sizes) > 100
        small = [size for size in sizes if size[1] < 24 or size[2] < 24]
        assert small == [], small[:5]
        page.close()
