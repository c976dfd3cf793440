"""Lighthouse's accessibility and SEO scores for every kind of page, on the demo site.

    .venv/bin/python -m benchmarks.lighthouse [--data-dir DIR] [--cache var/lighthouse]
        [--dark] [--only NAME ...]

Builds the demo into ``--data-dir`` (``paperboy demo --no-serve``) unless its database is
already there, serves it with uvicorn in its own process (``benchmarks/serve.py``), installs
the Lighthouse CLI into ``--cache`` with npm when it is not there yet, and runs it on Debian's
chromium (``CHROME_PATH=/usr/bin/chromium``, headless) once per page. Prints per page the
two scores (0-100) and the audits that lost points. ``--dark`` runs chromium with
``--force-dark-mode``, so the pages take their dark theme. Goal: accessibility >= 98 and
SEO 100 everywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.cli.demo.steps import DEMO_READER
from app.core.config import Settings, get_settings
from app.core.db import make_session_factory, open_engine, session_scope
from benchmarks.pages import PAGES
from benchmarks.serve import serve
from digest.accounts import links
from digest.accounts.addresses import parse_address
from digest.accounts.subscriptions import find_subscriber

PROJECT = Path(__file__).resolve().parent.parent
CHROME = "/usr/bin/chromium"
CHROME_FLAGS = "--headless --no-sandbox --disable-gpu"


@dataclass(frozen=True)
class Scores:
    accessibility: int
    seo: int
    lost: tuple[str, ...]  # "category: audit-id" for each audit that cost points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=None, help="demo data (kept, reused)")
    parser.add_argument("--cache", type=Path, default=PROJECT / "var" / "lighthouse")
    parser.add_argument("--dark", action="store_true", help="chromium with --force-dark-mode")
    parser.add_argument("--only", nargs="*", choices=sorted(PAGES), default=sorted(PAGES))
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="paperboy-lighthouse-"))
    lighthouse = install(args.cache)
    settings = build_demo(data_dir)
    with serve(data_dir, settings.embedding_backend) as base:
        fill = page_fill(base, settings)
        flags = CHROME_FLAGS + (" --force-dark-mode" if args.dark else "")
        print(f"{'page':<15} {'a11y':>4} {'seo':>4}  audits that lost points")
        for name in (name for name in PAGES if name in args.only):
            scores = audit(lighthouse, base + PAGES[name].format(**fill), flags)
            lost = ", ".join(scores.lost) or "-"
            print(f"{name:<15} {scores.accessibility:>4} {scores.seo:>4}  {lost}", flush=True)


def install(cache: Path) -> Path:
    """The Lighthouse CLI in ``cache``, installed with npm the first time."""
    binary = cache / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(cache), "lighthouse"], check=True)
    return binary


def build_demo(data_dir: Path) -> Settings:
    """The demo in ``data_dir``: built the first time, migrated to the code's schema after."""
    built = (data_dir / "paperboy.sqlite3").exists()
    env = {**os.environ, "PAPERBOY_DATA_DIR": str(data_dir)}
    step = ["migrate"] if built else ["demo", "--no-serve"]
    command = [sys.executable, "-m", "app.cli.main", *step]
    subprocess.run(command, env=env, cwd=PROJECT, check=True, stdout=subprocess.DEVNULL)
    return get_settings(data_dir=data_dir)


def page_fill(base: str, settings: Settings) -> dict[str, str]:
    """The demo's first trending paper, its first author and topic, the reader's token."""
    with urllib.request.urlopen(f"{base}/api/daily_papers?limit=1") as response:
        paper = json.load(response)[0]["paper"]["id"]
    with urllib.request.urlopen(f"{base}/papers/{paper}") as response:
        html = response.read().decode()
    author = re.search(r'href="/authors/([^"]+)"', html)
    topic = re.search(r'href="/topics/(\d+)"', html)
    assert author is not None and topic is not None, "the paper page links no author or topic"
    return {"paper": paper, "author": author[1], "topic": topic[1], "token": token(settings)}


def token(settings: Settings) -> str:
    """The demo reader's preferences link, as their digest carries it."""
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as session:
        reader = find_subscriber(session, parse_address(DEMO_READER).key)
        assert reader is not None, "the demo has no subscribed reader"
        return links.subscriber_token(settings, links.PREFERENCES, reader, datetime.now(UTC))


def audit(lighthouse: Path, url: str, flags: str) -> Scores:
    command = [
        str(lighthouse),
        url,
        "--only-categories=accessibility,seo",
        "--output=json",
        "--output-path=stdout",
        f"--chrome-flags={flags}",
        "--quiet",
        # An error page is audited too; answering 404 costs it SEO's http-status-code audit.
        "--ignore-status-code",
    ]
    env = {**os.environ, "CHROME_PATH": CHROME}
    report = json.loads(subprocess.run(command, env=env, capture_output=True, check=True).stdout)
    return Scores(_score(report, "accessibility"), _score(report, "seo"), _lost(report))


def _score(report: dict[str, Any], category: str) -> int:
    score: float = report["categories"][category]["score"]
    return round(100 * score)


def _lost(report: dict[str, Any]) -> tuple[str, ...]:
    return tuple(
        f"{name}: {ref['id']}{_where(report['audits'][ref['id']])}"
        for name, category in report["categories"].items()
        for ref in category["auditRefs"]
        if ref["weight"] > 0
        and (report["audits"][ref["id"]]["score"] or 0) < 1
        and report["audits"][ref["id"]]["scoreDisplayMode"] == "binary"
    )


def _where(audit: dict[str, Any]) -> str:
    """The first two elements an audit blames, where it names elements."""
    items = (audit.get("details") or {}).get("items") or []
    nodes = [item["node"]["selector"] for item in items if "node" in item][:2]
    return f" ({'; '.join(nodes)})" if nodes else ""


if __name__ == "__main__":
    main()
