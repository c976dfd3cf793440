"""A paper's Cite menu in a real browser, with and without JavaScript: it opens on a phone, its
references wrap inside the screen, it passes axe opened (where scripts run: axe is one), and
its links answer the formats. Skipped where Playwright or chromium is missing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import CHROMIUM, HF_PAPER, HOSTILE_ID
from tests.web.test_phone_screens_browser import PHONE, phone, scripting

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
axe_playwright: Any = pytest.importorskip(
    "axe_playwright_python.sync_playwright", reason="axe-playwright-python is not installed"
)
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian chromium is missing (apt-get install chromium)"
)
__all__ = ["phone", "scripting"]  # fixtures, used by name below


@pytest.mark.parametrize("arxiv_id", [HF_PAPER, HOSTILE_ID])
def test_the_cite_menu_opens_and_its_references_fit_a_phone(
    base_url: str, phone: Any, scripting: bool, arxiv_id: str
) -> None:
    phone.goto(f"{base_url}/papers/{arxiv_id}")
    menu = phone.locator("details.cite")
    assert not menu.locator(".reference").first.is_visible()  # closed until asked
    menu.locator("summary").click()
    references = menu.locator(".reference")
    assert references.count() == 2
    for at in range(2):
        box = references.nth(at).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert arxiv_id in references.nth(at).inner_text()
    assert f"@misc{{arXiv:{arxiv_id}," in menu.locator("pre.bibtex").inner_text()
    if scripting:  # axe is a script: it runs where the page may run one
        found = axe_playwright.Axe().run(phone, {"include": [["details.cite"]]}).response
        assert [violation["id"] for violation in found["violations"]] == []


def test_the_menus_links_answer_each_format(base_url: str, phone: Any) -> None:
    phone.goto(f"{base_url}/papers/{HF_PAPER}")
    links = phone.locator("details.cite a")
    hrefs = {links.nth(at).get_attribute("href") for at in range(links.count())}
    assert {f"/papers/{HF_PAPER}/cite.{suffix}" for suffix in ("bib", "ris", "json")} <= hrefs
    for href in hrefs:
        answer = phone.request.get(base_url + href)
        assert answer.status == 200, href
        assert HF_PAPER in answer.text(), href
