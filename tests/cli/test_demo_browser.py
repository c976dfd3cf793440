"""The demo as a newcomer tries it, in a real browser (Debian's chromium, Playwright): built by
``paperboy demo --no-serve`` from the bundled sample, served with its mail sink, then
subscribe, confirm from the mail file, sign in from the next one, and save a paper.

Skipped where Playwright or /usr/bin/chromium is missing, as the web package's browser tests
are.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.cli.demo.site import MailDrop, demo_app, served_at
from app.cli.main import main
from app.core.config import Settings, get_settings
from tests.cli.mail_files import mailed_link
from tests.servers import free_port, served
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS

sync_api: Any = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
pytestmark = [
    pytest.mark.model,
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is missing"),
]
READER = "newcomer@example.org"


@pytest.fixture(scope="module")
def built_demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The demo's site, built once as ``paperboy demo --no-serve`` builds it."""
    settings = get_settings(data_dir=tmp_path_factory.mktemp("demo"), search_semantic=False)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["demo", "--no-serve"], settings) == 0
    return settings


@pytest.fixture
def page() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        browser.close()


def test_a_newcomer_subscribes_confirms_signs_in_and_saves_on_the_served_demo(
    built_demo: Settings, page: Any, tmp_path: Path
) -> None:
    port = free_port()
    drop = MailDrop(free_port(), tmp_path / "mail")
    with served(demo_app(served_at(built_demo, "127.0.0.1", port), drop), port) as base_url:
        page.goto(f"{base_url}/")
        page.get_by_role("link", name="Subscribe").first.click()
        page.fill("#email", READER)
        page.get_by_role("button", name="Subscribe").click()
        assert "on its way" in page.inner_text("main")

        page.goto(mailed_link(drop.folder, READER, "/subscribe/confirm"))
        page.get_by_role("button", name="Confirm my subscription").click()
        assert "Your subscription is confirmed" in page.inner_text("main")

        page.goto(f"{base_url}/signin")
        page.fill("input[name=email]", READER)
        page.locator("main form button[type=submit]").first.click()
        page.goto(mailed_link(drop.folder, READER, "/signin/confirm"))
        assert page.url.startswith(base_url)
        page.locator("main form button[type=submit]").first.click()
        assert "You can vote now" in page.inner_text("main")

        page.goto(f"{base_url}/")
        first = page.locator("ol.papers > li").first
        title = first.locator(".title").first.inner_text()
        # A card's buttons sit in its fold, which opens from its line of why.
        first.locator("details.card-more > summary").click()
        save = first.get_by_role("button", name="Save")
        save.click()
        # The button saves in place; leaving before its answer would cancel the request.
        sync_api.expect(first.locator("form[data-reader=save] button")).to_have_attribute(
            "aria-pressed", "true"
        )
        page.goto(f"{base_url}/reading-list")
        assert title in page.inner_text("main")
