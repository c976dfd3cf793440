"""Sign in with ORCID in a real browser on a phone (390x844), with and without JavaScript:
a reader signed in by email links their iD from "For you", then another browser signs in
with ORCID alone. Paperboy is served by uvicorn, the OpenID provider (``tests/oidc_provider``)
on another site (``localhost`` beside ``127.0.0.1``), so ORCID's answer comes back cross-site
as ORCID's does; the pages pass axe (with JavaScript, which axe runs in)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from accounts import signin
from app.web.app import create_app
from app.web.routes.voting import SESSION_COOKIE
from tests.conftest import Database
from tests.oidc_provider import Provider, oidc_provider
from tests.servers import free_port, served
from tests.services.test_orcid_signin import JOSIAH, orcid_settings
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.web.test_accessibility import axe
from tests.web.test_reader_browser import SAMPLE, sync_api

__all__ = ["axe"]  # a fixture, used by name below
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is missing"),
]
PHONE = {"width": 390, "height": 844}
ADA = "ada@example.org"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium (tests/web's own fixture belongs to that package's shared site)."""
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def provider() -> Iterator[Provider]:
    with oidc_provider() as running:
        yield running


@pytest.fixture
def site(database: Database, provider: Provider) -> Iterator[tuple[str, Database]]:
    port = free_port()
    settings = orcid_settings(database, provider.other_issuer).model_copy(
        update={"public_base_url": f"http://127.0.0.1:{port}"}
    )
    database = Database(settings, database.engine, database.sessions)
    with served(create_app(settings), port) as url:
        yield url, database


def _browser_page(browser: Any, base_url: str, *, script: bool) -> tuple[Any, Any, list[str]]:
    """A phone's page; the provider's stylesheet (on a CDN) is never fetched. The console's
    errors on Paperboy's pages are kept."""
    context = browser.new_context(viewport=PHONE, java_script_enabled=script)
    context.route("https://**", lambda route: route.abort())
    page = context.new_page()
    page.set_default_timeout(10_000)
    problems: list[str] = []

    def seen(message: Any) -> None:
        if message.type == "error" and message.location.get("url", "").startswith(base_url):
            problems.append(message.text)

    page.on("console", seen)
    return context, page, problems


def _authorize_at_provider(page: Any, orcid_id: str) -> None:
    page.locator("input[name=sub]").fill(orcid_id)
    page.get_by_role("button", name="Authorize").click()


def _axe_clean(page: Any, axe: Any) -> None:
    found = axe.run(page, SAMPLE, {"resultTypes": ["violations"]}).response["violations"]
    assert [f"{v['id']}: {[n['target'] for n in v['nodes']]}" for v in found] == []


@pytest.mark.browser
@pytest.mark.parametrize("script", [False, True], ids=["no-js", "js"])
def test_a_reader_links_orcid_then_signs_in_with_it_on_a_phone(
    browser: Any, axe: Any, site: tuple[str, Database], script: bool
) -> None:
    base_url, database = site
    with database.sessions.begin() as session:
        cookie = signin.session_token(database.settings, session, ADA, datetime.now(UTC))
    context, page, problems = _browser_page(browser, base_url, script=script)
    context.add_cookies([{"name": SESSION_COOKIE, "value": cookie, "url": base_url}])
    page.goto(f"{base_url}/for-you")
    page.get_by_role("link", name="Link my ORCID iD").click()
    _authorize_at_provider(page, JOSIAH)
    sync_api.expect(page.get_by_role("heading", name="ORCID iD linked")).to_be_visible()
    if script:
        _axe_clean(page, axe)
    page.get_by_role("link", name="Back to For you").click()
    sync_api.expect(page.get_by_role("button", name="Unlink my ORCID iD")).to_be_visible()
    context.close()

    context, page, more = _browser_page(browser, base_url, script=script)
    page.goto(f"{base_url}/signin")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    if script:
        _axe_clean(page, axe)
    page.get_by_role("link", name="Sign in with ORCID").click()
    _authorize_at_provider(page, JOSIAH)
    sync_api.expect(page.get_by_text(f"You are signed in as {ADA}")).to_be_visible()
    page.get_by_role("link", name="Go to For you").click()
    sync_api.expect(page.get_by_text(f"Signed in as {ADA}").first).to_be_visible()
    assert problems + more == []
    context.close()
