"""The screenshots in ``docs/`` (``docs/readers.md`` shows them), taken from the demo.

    .venv/bin/python -m benchmarks.screenshots [--data-dir DIR] [--out docs]

Builds the demo into ``--data-dir`` (``paperboy demo --no-serve``) unless its database is
already there, serves it at the demo's clock (``app.cli.demo.site:create_demo_app``, so the
latest sample day is today and its papers' outcomes are still open), and shoots each page's
first screen with Playwright on Debian's chromium: a phone (390 by 844) and, for the listings,
a laptop (1366 by 900). Each PNG is reduced to a 128-colour palette, so ``docs/`` stays small.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from accounts import links
from accounts.addresses import parse_address
from accounts.subscriptions import find_subscriber
from app.cli.demo.replay import MARK_FILE, read_mark
from app.cli.demo.steps import DEMO_READER
from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from benchmarks.lighthouse import CHROME, PROJECT, build_demo, page_fill
from benchmarks.serve import serve

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
COLOURS = 128
DEMO_APP = "app.cli.demo.site:create_demo_app"
# A well-published author of the sample, found as a reader finds one: searched, then opened.
AUTHOR_SEARCH = "Dahua Lin"


@dataclass(frozen=True)
class Shot:
    name: str  # docs/<name>-<phone|desktop>.png
    path: str  # a template filled as benchmarks.pages fills its paths
    phone: bool = True
    desktop: bool = False


SHOTS = (
    Shot("trending", "/", desktop=True),
    Shot("trending-week", "/?period=week", desktop=True),
    Shot("search", "/search?q=video+diffusion", desktop=True),
    Shot("topics", "/topics", desktop=True),
    Shot("paper", "/papers/{paper}"),
    Shot("author", "{author_page}"),
    Shot("subscribe", "/subscribe"),
    Shot("preferences", "/subscriptions/preferences?token={token}", phone=False, desktop=True),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=None, help="demo data (kept, reused)")
    parser.add_argument("--out", type=Path, default=PROJECT / "docs")
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="paperboy-screenshots-"))
    settings = build_demo(data_dir)
    with serve(data_dir, settings.embedding_backend, factory=DEMO_APP) as base, chromium() as b:
        fill = {**page_fill(base, settings), "author_page": author_page(b, base)}
        fill["token"] = demo_token(settings)
        for shot in SHOTS:
            sizes = [("phone", PHONE)] * shot.phone + [("desktop", DESKTOP)] * shot.desktop
            for size_name, viewport in sizes:
                target = args.out / f"{shot.name}-{size_name}.png"
                take(b, base + shot.path.format(**fill), viewport, target)
                print(f"{target.relative_to(PROJECT)}: {target.stat().st_size // 1024} KB")


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROME, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield browser
        finally:
            browser.close()


def author_page(browser: Any, base: str) -> str:
    """The path of :data:`AUTHOR_SEARCH`'s page, from the first paper search finds for them."""
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{base}/search?q={AUTHOR_SEARCH.replace(' ', '+')}")
    page.locator("ol.papers li.paper .title a").first.click()
    page.wait_for_url("**/papers/**")
    link = page.locator("article .authors a", has_text=AUTHOR_SEARCH).first
    href = str(link.get_attribute("href"))
    page.close()
    return href


def demo_token(settings: Settings) -> str:
    """The demo reader's preferences link, issued at the served demo's clock (a link issued at
    the real time would be one from its future)."""
    issued = read_mark(settings.data_dir / MARK_FILE)
    assert issued is not None, "the demo site has not marked its clock"
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as session:
        reader = find_subscriber(session, parse_address(DEMO_READER).key)
        assert reader is not None, "the demo has no subscribed reader"
        return links.subscriber_token(settings, links.PREFERENCES, reader, issued)


def take(browser: Any, url: str, viewport: dict[str, int], target: Path) -> None:
    """The first screen of ``url``, as a palette PNG at ``target``."""
    page = browser.new_page(viewport=viewport)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(target))
    page.close()
    with Image.open(target) as shot:
        small = shot.convert("RGB").quantize(colors=COLOURS, method=Image.Quantize.MEDIANCUT)
    small.save(target, optimize=True)


if __name__ == "__main__":
    main()
