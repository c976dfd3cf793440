"""A person's page in a real browser, with and without JavaScript: "This is me" claims the
person, and the claimant's "Not by this person" takes a paper off everyone's page. (Not under
tests/web: those share one filled site, and this store is its own.)"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest

from accounts import reader, signin
from app.core.db import session_scope
from app.web.app import create_app
from tests.conftest import Database
from tests.servers import served
from tests.services.test_person_pages import MAGNET_PAPERS, people
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.web.test_reader_browser import Visit

__all__ = ["people"]  # a fixture, used by name below
sync_api: Any = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is missing")


def _cards(page: Any) -> list[str]:
    found = page.locator("ol.papers > li.paper").evaluate_all("items => items.map(i => i.id)")
    return sorted(item.removeprefix("p-") for item in found)


@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_a_claimant_claims_their_person_and_takes_a_namesakes_paper_off_it(
    database: Database, people: tuple[int, int], script: bool
) -> None:
    magnets = people[1]
    with session_scope(database.sessions) as session:
        cookie = signin.session_token(
            database.settings, session, "zq@example.org", datetime.now(UTC)
        )
    with served(create_app(database.settings)) as url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            visit = Visit(browser, url, cookie, script=script)
            visit.page.set_default_timeout(10_000)
            page = visit.go(f"/people/{magnets}")
            claim = page.get_by_role("button", name="This is me")
            claim.click()
            # With or without the script, the form answers back to the page, which says what
            # arXiv said (this reader did not sign in with ORCID) and marks the claim.
            page.wait_for_url(re.compile(rf"/people/{magnets}\?arxiv=no-orcid#claim-heading$"))
            sync_api.expect(page.get_by_text("Not verified: sign in with ORCID")).to_be_visible()
            sync_api.expect(claim).to_have_attribute("aria-pressed", "true")
            page.get_by_label("Paper", exact=True).select_option(MAGNET_PAPERS[1])
            page.get_by_role("button", name="Not by this person").click()
            page.wait_for_url(re.compile(rf"/people/{magnets}\?arxiv=no-orcid$"))
            sync_api.expect(page.get_by_role("button", name="Take it back")).to_be_visible()
            assert _cards(page) == [MAGNET_PAPERS[0]]
            assert visit.problems == []
            visit.context.close()
        finally:
            browser.close()
    with database.sessions() as session:
        found = reader.find(session, "zq@example.org")
        assert found is not None and found.claimed_person == magnets
