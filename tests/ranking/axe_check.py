"""axe-core on one page of a store's own site, in a real browser, for the tests under
tests/ranking that serve a planted store (tests/web audits the shared sample's pages)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from app.core.config import Settings
from app.web.app import create_app
from tests.servers import served
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS


def audited(
    settings: Settings, path: str, cookies: Sequence[tuple[str, str]] = ()
) -> dict[str, list[str]]:
    """axe's violations on ``path`` per case: every rule in the light theme, with the page's
    scripts and without them, and colour contrast in the dark theme (skipped where chromium or
    axe is missing)."""
    sync_api: Any = pytest.importorskip("playwright.sync_api")
    axe: Any = pytest.importorskip("axe_playwright_python.sync_playwright").Axe()
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is missing (apt-get install chromium)")
    cases = {"light": ("light", True), "dark": ("dark", True), "no-scripts": ("light", False)}
    with served(create_app(settings)) as url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            return {
                name: _violations(browser, axe, url, path, scheme, scripts, cookies)
                for name, (scheme, scripts) in cases.items()
            }
        finally:
            browser.close()


def _violations(
    browser: Any,
    axe: Any,
    base: str,
    path: str,
    scheme: str,
    scripts: bool,
    cookies: Sequence[tuple[str, str]],
) -> list[str]:
    """Without scripts, the page's own are refused (axe itself runs as a script, so the
    browser keeps them on)."""
    context = browser.new_context(color_scheme=scheme)
    try:
        if cookies:
            context.add_cookies([{"name": n, "value": v, "url": base} for n, v in cookies])
        if not scripts:
            context.route("**/*.js", lambda route: route.abort())
        page = context.new_page()
        page.goto(base + path)
        options: dict[str, Any] = {"resultTypes": ["violations"]}
        if scheme == "dark":
            options["runOnly"] = ["color-contrast"]
        violations = axe.run(page, None, options).response["violations"]
    finally:
        context.close()
    return sorted(f"{v['id']}: {n['target']}" for v in violations for n in v["nodes"])
