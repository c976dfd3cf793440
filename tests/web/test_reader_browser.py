"""The reader's buttons and pages in a real browser (Debian's chromium, Playwright), with and
without JavaScript: every button is a form that works alone; the script acts in place and
marks shared pages with what the reader did, under the strict CSP (no console error).

Skipped where Playwright or /usr/bin/chromium is missing, as ``test_browser.py`` is. Every
test signs in as a reader of its own, deleted with what they did afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from itertools import count
from typing import Any

import pytest

from accounts import reader, signin
from accounts.subscriptions import delete_everything
from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.web.routes.voting import SESSION_COOKIE
from tests.web.conftest import CHROMIUM, LAST_DAY
from tests.web.helpers import a_topic_of, edition_ids

sync_api: Any = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is missing")
_numbers = count()
# As the axe test: a list's first five cards stand for the rest.
SAMPLE = {"exclude": ["ol.papers > li:nth-child(n+6)"]}


class Visit:
    """A signed-in reader's browser: a page, and the console's errors."""

    def __init__(self, browser: Any, base_url: str, cookie: str, *, script: bool) -> None:
        self.context = browser.new_context(
            viewport={"width": 1280, "height": 900}, java_script_enabled=script
        )
        self.context.add_cookies([{"name": SESSION_COOKIE, "value": cookie, "url": base_url}])
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on(
            "console", lambda m: self.problems.append(m.text) if m.type == "error" else None
        )
        self.page.on("pageerror", lambda error: self.problems.append(str(error)))
        self.base_url = base_url

    def go(self, path: str) -> Any:
        self.page.goto(self.base_url + path)
        return self.page


@pytest.fixture
def address(site_settings: Settings) -> Iterator[str]:
    mailbox = f"browser{next(_numbers)}@example.org"
    yield mailbox
    with open_engine(site_settings) as engine, session_scope(make_session_factory(engine)) as s:
        found = reader.find(s, mailbox)
        if found is not None:
            delete_everything(s, found)


def _visit(browser: Any, base_url: str, settings: Settings, mailbox: str, *, script: bool) -> Visit:
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as s:
        cookie = signin.session_token(settings, s, mailbox, datetime.now(UTC))
    return Visit(browser, base_url, cookie, script=script)


def _card(page: Any, arxiv_id: str) -> Any:
    return page.locator(f"[id='p-{arxiv_id.replace('/', '-')}']")


def _opened(card: Any) -> Any:
    """The card with its fold open: a listing keeps the reader's buttons under "More"."""
    card.locator("details.card-more > summary").click()
    return card


@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_a_reader_saves_and_thumbs_up_from_the_trending_page(
    base_url: str, browser: Any, site_settings: Settings, address: str, script: bool
) -> None:
    first = edition_ids(site_settings, "day", LAST_DAY)[0]
    visit = _visit(browser, base_url, site_settings, address, script=script)
    page = visit.go("/")
    card = _opened(_card(page, first))
    card.get_by_role("button", name="Save").click()
    if not script:  # back on the page, where the card is folded again
        _opened(card)
    card.get_by_role("button", name="More like this").click()
    if script:  # in place, no new page
        sync_api.expect(card.get_by_role("button", name="Saved ✓")).to_have_attribute(
            "aria-pressed", "true"
        )
        up = card.get_by_role("button", name="More like this")
        sync_api.expect(up).to_have_attribute("aria-pressed", "true")
    else:  # back on the page it came from
        page.wait_for_url(f"{base_url}/")
    page = visit.go("/reading-list")
    assert page.locator("li.paper").count() == 1
    saved = _card(page, first)
    sync_api.expect(saved.get_by_role("button", name="More like this")).to_have_attribute(
        "aria-pressed", "true"
    )
    saved.get_by_role("button", name="Saved ✓").click()
    if not script:
        page.wait_for_url(f"{base_url}/reading-list")
        assert page.locator("li.paper").count() == 0
    else:
        sync_api.expect(saved.get_by_role("button", name="Save")).to_have_attribute(
            "aria-pressed", "false"
        )
    assert visit.problems == []
    visit.context.close()


@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_a_reader_saves_and_thumbs_a_paper_from_its_own_page(
    base_url: str, browser: Any, site_settings: Settings, address: str, script: bool
) -> None:
    paper = edition_ids(site_settings, "day", LAST_DAY)[3]
    visit = _visit(browser, base_url, site_settings, address, script=script)
    page = visit.go(f"/papers/{paper}")
    # The paper's own buttons; the similar papers' cards below have theirs.
    own = page.locator(f"article > .reader-actions[data-paper='{paper}']")
    own.get_by_role("button", name="Save").click()
    if not script:  # back on the paper's page, which shows what this reader did
        page.wait_for_url(f"{base_url}/papers/{paper}")
    sync_api.expect(own.get_by_role("button", name="Saved ✓")).to_have_attribute(
        "aria-pressed", "true"
    )
    less = own.get_by_role("button", name="Less like this")
    less.click()
    sync_api.expect(less).to_have_attribute("aria-pressed", "true")
    more = own.get_by_role("button", name="More like this")
    sync_api.expect(more).to_have_attribute("aria-pressed", "false")
    more.click()
    sync_api.expect(more).to_have_attribute("aria-pressed", "true")
    sync_api.expect(less).to_have_attribute("aria-pressed", "false")
    page = visit.go("/reading-list")
    saved = _card(page, paper)
    sync_api.expect(saved.get_by_role("button", name="More like this")).to_have_attribute(
        "aria-pressed", "true"
    )
    assert visit.problems == []
    visit.context.close()


@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_a_reader_follows_a_topic_and_sees_it_on_for_you(
    base_url: str, browser: Any, site_settings: Settings, address: str, script: bool
) -> None:
    topic, _papers = a_topic_of(site_settings, LAST_DAY)
    visit = _visit(browser, base_url, site_settings, address, script=script)
    page = visit.go(f"/topics/{topic}")
    follow = page.get_by_role("button", name="Follow this topic")
    follow.click()
    if script:
        sync_api.expect(follow).to_have_attribute("aria-pressed", "true")
    page = visit.go("/for-you")
    sync_api.expect(
        page.get_by_role("heading", name="Topics you follow", exact=True)
    ).to_be_visible()
    assert "in the topic you follow" in page.locator("ol.papers").first.inner_text()
    page.get_by_role("button", name="Unfollow").click()
    page.wait_for_url(f"{base_url}/for-you")
    sync_api.expect(
        page.get_by_role("heading", name="Topics you follow", exact=True)
    ).to_have_count(0)
    assert visit.problems == []
    visit.context.close()


@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_following_a_topic_shows_its_undo_a_line_saying_so_and_the_new_count(
    base_url: str, browser: Any, site_settings: Settings, address: str, script: bool
) -> None:
    topic, _papers = a_topic_of(site_settings, LAST_DAY)
    visit = _visit(browser, base_url, site_settings, address, script=script)
    page = visit.go(f"/topics/{topic}")
    count = page.locator("[data-followers]")
    before = int(count.get_attribute("data-followers"))
    said = page.locator("[data-stance-said]")
    page.get_by_role("button", name="Follow this topic", exact=True).click()
    unfollow = page.get_by_role("button", name="Unfollow this topic", exact=True)
    sync_api.expect(unfollow).to_have_attribute("aria-pressed", "true")
    sync_api.expect(said).to_have_text("✓ You follow this topic.")
    sync_api.expect(count).to_have_attribute("data-followers", str(before + 1))
    sync_api.expect(count).to_have_text(f"{before + 1} follower{'' if before == 0 else 's'}")
    unfollow.click()
    follow = page.get_by_role("button", name="Follow this topic", exact=True)
    sync_api.expect(follow).to_have_attribute("aria-pressed", "false")
    sync_api.expect(said).to_have_text("")
    sync_api.expect(count).to_have_attribute("data-followers", str(before))
    assert visit.problems == []
    visit.context.close()


@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_following_a_search_in_the_digest_shows_it_on_the_search_page(
    base_url: str, browser: Any, site_settings: Settings, address: str, script: bool
) -> None:
    visit = _visit(browser, base_url, site_settings, address, script=script)
    page = visit.go("/search?q=AnimaMimic")
    page.get_by_role("button", name="Follow in my digest").click()
    sync_api.expect(page.locator("#search-followed")).to_contain_text("Following in your digest")
    page.get_by_role("button", name="Unfollow this search").click()
    sync_api.expect(page.get_by_role("button", name="Follow in my digest")).to_be_visible()
    assert visit.problems == []
    visit.context.close()


@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_a_reader_claims_an_author_page_and_makes_a_private_feed(
    base_url: str, browser: Any, site_settings: Settings, address: str, script: bool
) -> None:
    first = edition_ids(site_settings, "day", LAST_DAY)[0]
    visit = _visit(browser, base_url, site_settings, address, script=script)
    page = visit.go(f"/papers/{first}")
    page.locator(".authors a, a[href^='/authors/']").first.click()
    claim = page.get_by_role("button", name="This is me")
    claim.click()
    if script:
        sync_api.expect(claim).to_have_attribute("aria-pressed", "true")
    page = visit.go("/for-you")
    sync_api.expect(page.get_by_text("Your author page:")).to_be_visible()
    page.get_by_role("button", name="Make my private feed (RSS, Atom, JSON)").click()
    page.wait_for_url(f"{base_url}/for-you")
    href = page.get_by_role("link", name="Atom").get_attribute("href")
    assert href is not None and href.startswith("/for-you/feed.atom?token=")
    assert visit.problems == []
    visit.context.close()


def test_for_you_invites_a_reader_who_is_not_signed_in(base_url: str, browser: Any) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{base_url}/")
    page.get_by_role("link", name="For you").click()
    page.get_by_role("link", name="Sign in").click()
    page.wait_for_url(f"{base_url}/signin")
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_signed_in_readers_pages_pass_axe(
    base_url: str, browser: Any, site_settings: Settings, address: str, scheme: str
) -> None:
    axe_module: Any = pytest.importorskip(
        "axe_playwright_python.sync_playwright", reason="axe-playwright-python is not installed"
    )
    first = edition_ids(site_settings, "day", LAST_DAY)[0]
    topic, _papers = a_topic_of(site_settings, LAST_DAY)
    visit = _visit(browser, base_url, site_settings, address, script=False)
    visit.go(f"/topics/{topic}").get_by_role("button", name="Follow this topic").click()
    _opened(_card(visit.go("/"), first)).get_by_role("button", name="Save").click()
    page = visit.go("/for-you")
    page.get_by_role("button", name="Make my private feed (RSS, Atom, JSON)").click()
    page.wait_for_url(f"{base_url}/for-you")
    visit.context.close()
    axe = axe_module.Axe()
    for path in ("/for-you", "/reading-list"):  # axe runs as a script
        visit = _visit(browser, base_url, site_settings, address, script=True)
        visit.page.emulate_media(color_scheme=scheme)
        visit.go(path)
        rules = {"runOnly": ["color-contrast"]} if scheme == "dark" else {}
        options = {"resultTypes": ["violations"], **rules}
        found = axe.run(visit.page, SAMPLE, options).response["violations"]
        assert [(v["id"], [n["target"] for n in v["nodes"]]) for v in found] == [], path
        visit.context.close()
