"""What a reader sees on the first screen, in a real browser, with and without JavaScript: a
phone (390 by 844) shows several whole paper titles on every listing, the subscribe form's
address, frequency and button, and a paper's arXiv and PDF links; a laptop (1366 by 900) shows
more titles still. Skipped where Playwright or chromium is missing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.conftest import CHROMIUM, HF_PAPER

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian chromium is missing (apt-get install chromium)"
)
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
TITLES = "ol.papers li.paper .title"
WHOLLY_INSIDE = (
    "els => els.filter(e => { const r = e.getBoundingClientRect();"
    " return r.height > 0 && r.top >= 0 && r.left >= 0"
    " && r.bottom <= innerHeight && r.right <= innerWidth; }).length"
)


@pytest.fixture(params=[True, False], ids=["javascript", "no-javascript"])
def scripting(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture
def phone(browser: Any, scripting: bool) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, java_script_enabled=scripting)
    yield context.new_page()
    context.close()


def whole_titles(page: Any, url: str) -> int:
    """How many paper titles lie wholly inside the first screen of ``url``."""
    page.goto(url)
    return int(page.eval_on_selector_all(TITLES, WHOLLY_INSIDE))


def on_first_screen(page: Any, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    size = page.viewport_size
    return bool(box["y"] >= 0 and box["y"] + box["height"] <= size["height"])


def first_link(page: Any, base_url: str, selector: str) -> str:
    """The address of the front page's first link matching ``selector``, as a reader follows."""
    page.goto(f"{base_url}/")
    href = page.locator(selector).first.get_attribute("href")
    assert href, selector
    return f"{base_url}{href}"


def test_a_phone_shows_four_whole_titles_on_the_front_page(base_url: str, phone: Any) -> None:
    assert whole_titles(phone, f"{base_url}/") >= 4


def test_a_laptop_shows_seven_whole_titles_on_the_front_page(
    base_url: str, browser: Any, scripting: bool
) -> None:
    context = browser.new_context(viewport=DESKTOP, java_script_enabled=scripting)
    assert whole_titles(context.new_page(), f"{base_url}/") >= 7
    context.close()


def test_a_phone_keeps_the_navigation_in_one_row(base_url: str, phone: Any) -> None:
    phone.goto(f"{base_url}/")
    tops = phone.eval_on_selector_all(
        ".site-header nav a", "els => els.map(e => Math.round(e.getBoundingClientRect().top))"
    )
    assert len(tops) >= 5 and len(set(tops)) == 1, tops
    phone.get_by_role("link", name="Subscribe").first.click()  # reached, though scrolled to
    phone.wait_for_url("**/subscribe")


@pytest.mark.parametrize("path", ["/?period=week", "/search?q=diffusion"], ids=["week", "search"])
def test_a_phone_shows_three_whole_titles_on_a_listing(
    base_url: str, phone: Any, path: str
) -> None:
    assert whole_titles(phone, f"{base_url}{path}") >= 3


def test_a_phone_shows_three_whole_titles_on_a_topic_page(base_url: str, phone: Any) -> None:
    url = first_link(phone, base_url, "ol.papers li.paper a[href^='/topics/']")
    phone.goto(url)
    assert phone.locator(TITLES).count() >= 3, url
    assert whole_titles(phone, url) >= 3


def test_a_phone_shows_three_whole_titles_on_an_author_page(base_url: str, phone: Any) -> None:
    # One of the sample's most published authors, reached as a reader would: found, then followed.
    phone.goto(f"{base_url}/search?q=Dahua+Lin")
    phone.locator(f"{TITLES} a").first.click()
    href = phone.locator("article .authors a", has_text="Dahua Lin").first.get_attribute("href")
    url = f"{base_url}{href}"
    phone.goto(url)
    assert phone.locator(TITLES).count() >= 3, url
    assert whole_titles(phone, url) >= 3


def test_a_phone_shows_an_organizations_papers_first(base_url: str, phone: Any) -> None:
    phone.goto(f"{base_url}/papers/{HF_PAPER}")
    organization = phone.locator("a[href^='/organizations/']")
    if not organization.count():
        pytest.skip("the sample names no organization on Hugging Face")
    url = f"{base_url}{organization.first.get_attribute('href')}"
    phone.goto(url)
    listed = phone.locator(TITLES).count()
    # The sample's one organization submitted a single paper: every title it has must show.
    assert whole_titles(phone, url) >= min(listed, 3) >= 1


def test_a_phone_subscribes_from_the_first_screen(base_url: str, phone: Any) -> None:
    phone.goto(f"{base_url}/subscribe")
    for part in ("#email", "[name=frequency]", "form[action='/subscribe'] button[type=submit]"):
        assert on_first_screen(phone, part), part


def test_a_phone_shows_a_papers_arxiv_and_pdf_links_first(base_url: str, phone: Any) -> None:
    phone.goto(f"{base_url}/papers/{HF_PAPER}")
    for part in ("article .links a[href*='arxiv.org/abs/']", "article .links a[href*='/pdf/']"):
        assert on_first_screen(phone, part), part
