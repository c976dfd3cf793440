"""Researchers who are who they say, end to end in a real browser on a phone (390x844), with
and without JavaScript: a reader signs in by a mailed link, links their ORCID iD at the local
OpenID provider (``tests/oidc_provider``), and claims the person whose paper arXiv's author
feed for that iD lists (served from recorded entries, ``tests/ingest/author_feeds``): the
page says the claim is verified. An impostor's claim of the same person stays unverified and
their "hide" is refused in words. A moderator, named with ``paperboy moderators add``,
refuses the impostor's claim from ``/moderation`` with a reason, which the impostor reads on
their decisions page. Every page of Paperboy's on the way passes axe (with JavaScript, which
axe runs in). (Not under tests/web: those share one filled site, and this store is its own.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from accounts import links, signin
from app.cli.main import main
from app.web.app import create_app
from app.web.routes.voting import SESSION_COOKIE
from tests.conftest import Database
from tests.ingest.author_feeds import ORCID, author_feed, feed_path
from tests.ingest.recorded_server import RecordedServer, Reply, recorded_server
from tests.oidc_provider import Provider, oidc_provider
from tests.servers import free_port, served
from tests.services.test_orcid_browser import _authorize_at_provider, _axe_clean, _browser_page
from tests.services.test_orcid_signin import orcid_settings
from tests.services.test_verified_claims import ATOM, MARK, THEIRS, magnets
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.web.test_accessibility import axe

__all__ = ["axe", "magnets"]  # fixtures, used by name below
sync_api: Any = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is missing"),
]
ZHE, MALLORY, MODERATOR = "zq@example.org", "mallory@example.org", "mod@example.org"
REASON = "Zhe Qu's claim is verified by arXiv; yours is not"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One chromium for both runs."""
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    with oidc_provider() as running:
        yield running


@pytest.fixture(scope="module")
def feeds() -> Iterator[RecordedServer]:
    """arXiv's author feed for the iD, listing a paper of the magnets person."""
    with recorded_server() as running:
        running.add(feed_path(ORCID), {}, Reply(200, author_feed(ORCID, THEIRS), ATOM))
        yield running


@pytest.fixture
def site(
    database: Database, provider: Provider, feeds: RecordedServer, magnets: int
) -> Iterator[tuple[str, Database]]:
    """Paperboy served with ORCID sign-in (the provider on another site) and the feeds."""
    port = free_port()
    settings = orcid_settings(database, provider.other_issuer).model_copy(
        update={
            "public_base_url": f"http://127.0.0.1:{port}",
            "arxiv_author_feed_url": f"{feeds.url}/a",
            "arxiv_min_interval_seconds": 0.0,
            "arxiv_max_retries": 0,
            "http_timeout_seconds": 2.0,
            "contact_email": "ops@paperboy.test",
        }
    )
    with served(create_app(settings), port) as url:
        yield url, Database(settings, database.engine, database.sessions)


class Phone:
    """One reader's phone: a page, the console's errors on Paperboy's pages, and axe."""

    def __init__(self, browser: Any, axe: Any, base_url: str, *, script: bool) -> None:
        self.context, self.page, self.problems = _browser_page(browser, base_url, script=script)
        self.axe, self.script, self.base_url = axe, script, base_url

    def signed_in(self, database: Database, address: str) -> Phone:
        """Signed in as most browser tests sign in: the session a mailed link gives."""
        with database.sessions.begin() as session:
            cookie = signin.session_token(database.settings, session, address, datetime.now(UTC))
        self.context.add_cookies([{"name": SESSION_COOKIE, "value": cookie, "url": self.base_url}])
        return self

    def mail_link(self, database: Database, address: str) -> Phone:
        """Signed in by the link a sign-in mail carries, and its "Sign in" button."""
        now = datetime.now(UTC)
        with database.sessions.begin() as session:
            key = signin.key_for(session, address, now)
        self.page.goto(links.signin_url(database.settings, address, key, now))
        self.checked().get_by_role("button", name="Sign in").click()
        sync_api.expect(self.page.get_by_text(f"You can vote now as {address}")).to_be_visible()
        self.checked()
        return self

    def checked(self) -> Any:
        """The page as it stands, with axe's verdict on it (axe needs the script)."""
        if self.script:
            _axe_clean(self.page, self.axe)
        return self.page

    def go(self, path: str) -> Any:
        self.page.goto(self.base_url + path)
        return self.checked()

    def done(self) -> list[str]:
        """Closed; the console's errors, less the refused button's own status line."""
        self.context.close()
        return [one for one in self.problems if "status of 403" not in one]


@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_a_researcher_is_verified_an_impostor_refused_and_a_moderator_decides(
    browser: Any, axe: Any, site: tuple[str, Database], magnets: int, script: bool
) -> None:
    base_url, database = site
    zhe = Phone(browser, axe, base_url, script=script).mail_link(database, ZHE)
    zhe.go("/for-you").get_by_role("link", name="Link my ORCID iD").click()
    _authorize_at_provider(zhe.page, ORCID)
    sync_api.expect(zhe.page.get_by_role("heading", name="ORCID iD linked")).to_be_visible()
    zhe.checked()
    _claim(zhe, magnets, "verified")
    sync_api.expect(zhe.page.get_by_text("Verified: arXiv lists papers")).to_be_visible()
    sync_api.expect(zhe.page.get_by_text("Your claim is verified by arXiv.")).to_be_visible()
    sync_api.expect(zhe.page.get_by_text(MARK)).to_be_visible()
    sync_api.expect(zhe.page.get_by_text("Missing one? Link it to your arXiv")).to_be_visible()
    # A verified claimant checks again (after linking a paper on arXiv): read anew, said so.
    with zhe.page.expect_navigation():
        zhe.page.get_by_role("button", name="Check with arXiv again").click()
    sync_api.expect(zhe.page.get_by_text("Verified: arXiv lists papers")).to_be_visible()
    zhe.checked()

    mallory = Phone(browser, axe, base_url, script=script).signed_in(database, MALLORY)
    mallory.go(f"/people/{magnets}")
    _claim(mallory, magnets, "taken")
    sync_api.expect(mallory.page.get_by_text("Another reader's claim of this")).to_be_visible()
    sync_api.expect(mallory.page.get_by_text("Your claim is unverified")).to_be_visible()
    mallory.page.get_by_role("button", name="Hide this page (verified claimant only)").click()
    refusal = f"only person {magnets}'s verified claimant or a moderator may hide or show"
    sync_api.expect(mallory.page.get_by_text(refusal)).to_be_visible()
    mallory.checked()
    public = httpx.get(f"{base_url}/people/{magnets}")
    assert public.status_code == 200 and MARK in public.text

    assert main(["moderators", "add", MODERATOR], database.settings) == 0
    moderator = Phone(browser, axe, base_url, script=script).signed_in(database, MODERATOR)
    waiting = moderator.go("/moderation").locator("li", has_text=MALLORY)
    waiting.get_by_label(f"Reason for the claim of {MALLORY} on person {magnets}").fill(REASON)
    waiting.get_by_role("button", name="Refuse").click()
    sync_api.expect(moderator.page.get_by_text("Claim refused: the reader no")).to_be_visible()
    sync_api.expect(moderator.page.get_by_text("No claim waits.")).to_be_visible()
    moderator.checked()

    decided = mallory.go("/moderation/decisions").locator("ul.decisions > li")
    sync_api.expect(decided).to_have_count(1)
    sync_api.expect(decided).to_contain_text(f"person {magnets} was refused. Reason: {REASON}")
    assert zhe.done() + mallory.done() + moderator.done() == []


def _claim(phone: Phone, person: int, said: str) -> None:
    """ "This is me" on the person's page; with or without the script, the answer is the page
    again, saying what arXiv said."""
    phone.go(f"/people/{person}").get_by_role("button", name="This is me").click()
    phone.page.wait_for_url(re.compile(rf"/people/{person}\?arxiv={said}#claim-heading$"))
    phone.checked()
