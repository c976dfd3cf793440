"""Lighthouse's scores for every kind of page, on the demo site: performance (mobile, default
throttling), accessibility, best practices and SEO, the median of ``--runs`` runs.

    .venv/bin/python -m benchmarks.lighthouse [--data-dir DIR] [--cache var/lighthouse]
        [--runs 3] [--dark] [--only NAME ...]

Builds the demo into ``--data-dir`` (``paperboy demo --no-serve``) unless its database is
already there, serves it with uvicorn in its own process (``benchmarks/serve.py``), installs
the Lighthouse CLI (``LIGHTHOUSE``, pinned) into ``--cache`` with npm when it is not there yet,
and runs it on Debian's chromium (``CHROME_PATH=/usr/bin/chromium``, headless). Before each
run it waits for the one-minute load average to fall under 1, as a busy machine scores lower;
a run that had to start anyway says so. Prints per page the four medians (0-100), each run's
performance, and the audits that lost points in the last run. ``--dark`` runs chromium with
``--force-dark-mode``, so the pages take their dark theme. Goals: performance >= 90 on the
trending, search, paper, topic and author pages; accessibility >= 98, best practices and SEO
100 everywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from accounts import links
from accounts.addresses import parse_address
from accounts.subscriptions import find_subscriber
from app.cli.demo.steps import DEMO_READER
from app.core.config import Settings, get_settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import HfDailyPaper, SharedList
from benchmarks.pages import PAGES as SITE_PAGES
from benchmarks.serve import serve

PROJECT = Path(__file__).resolve().parent.parent
CHROME = "/usr/bin/chromium"
CHROME_FLAGS = "--headless --no-sandbox --disable-gpu --disable-background-networking"
LIGHTHOUSE = "lighthouse@13.5.0"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
QUIET_LOAD = 1.0
QUIET_WAIT_SECONDS = 300
TRIES = 3  # Lighthouse now and then loses its browser mid-run (exit 1): made again


@dataclass(frozen=True)
class Scores:
    by_category: dict[str, int]  # 0-100, by Lighthouse's category id
    lost: tuple[str, ...]  # "category: audit-id" for each audit that cost points


# Beside every kind of page axe checks: a list a reader published (the demo's reading group).
PAGES = {**SITE_PAGES, "published-list": "/lists/{list}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=None, help="demo data (kept, reused)")
    parser.add_argument("--cache", type=Path, default=PROJECT / "var" / "lighthouse")
    parser.add_argument("--runs", type=int, default=3, help="runs per page (the median counts)")
    parser.add_argument("--dark", action="store_true", help="chromium with --force-dark-mode")
    parser.add_argument("--only", nargs="*", choices=sorted(PAGES), default=sorted(PAGES))
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="paperboy-lighthouse-"))
    lighthouse = install(args.cache)
    settings = build_demo(data_dir)
    with serve(data_dir, settings.embedding_backend) as base:
        fill = page_fill(base, settings)
        flags = CHROME_FLAGS + (" --force-dark-mode" if args.dark else "")
        print(f"{LIGHTHOUSE}, mobile defaults, median of {args.runs} runs\n")
        print("| page | performance | accessibility | best practices | SEO | runs | lost |")
        print("|---|---:|---:|---:|---:|---|---|")
        for name in (name for name in PAGES if name in args.only):
            try:
                url = base + PAGES[name].format(**fill)
            except KeyError as missing:
                print(f"| {name} | - | - | - | - | - | the demo has no {missing} page |")
                continue
            runs = [audit(lighthouse, url, flags) for _ in range(args.runs)]
            print(f"| {name} | {_row(runs)} |", flush=True)


def _row(runs: list[Scores]) -> str:
    medians = [statistics.median(run.by_category[c] for run in runs) for c in CATEGORIES]
    each = ", ".join(str(run.by_category["performance"]) for run in runs)
    lost = ", ".join(runs[-1].lost) or "-"
    return " | ".join([*(f"{m:.0f}" for m in medians), each, lost])


def install(cache: Path) -> Path:
    """The Lighthouse CLI in ``cache``, installed with npm the first time."""
    binary = cache / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(cache), LIGHTHOUSE], check=True)
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
    """The demo's first trending paper, its first author and topic, an organization (none when
    the demo holds no Hugging Face organization), the reader's token."""
    with urllib.request.urlopen(f"{base}/api/daily_papers?limit=1") as response:
        paper = json.load(response)[0]["paper"]["id"]
    with urllib.request.urlopen(f"{base}/papers/{paper}") as response:
        html = response.read().decode()
    author = re.search(r'href="/authors/([^"]+)"', html)
    topic = re.search(r'href="/topics/(\d+)"', html)
    assert author is not None and topic is not None, "the paper page links no author or topic"
    fill = {"paper": paper, "author": author[1], "topic": topic[1], "token": token(settings)}
    return fill | demo_slugs(settings)


def demo_slugs(settings: Settings) -> dict[str, str]:
    """A list a demo reader published and the organization with the most papers on Hugging
    Face's daily page, each left out where the demo holds none."""
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as session:
        published = session.scalar(
            select(SharedList.slug)
            .where(SharedList.published_at.is_not(None))
            .order_by(SharedList.list_id)
            .limit(1)
        )
        organization = session.scalar(
            select(HfDailyPaper.organization_name)
            .where(HfDailyPaper.organization_name.is_not(None))
            .group_by(HfDailyPaper.organization_name)
            .order_by(func.count().desc(), HfDailyPaper.organization_name)
            .limit(1)
        )
    found = {"list": published, "organization": organization}
    return {name: slug for name, slug in found.items() if slug is not None}


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
        "--only-categories=" + ",".join(CATEGORIES),
        "--output=json",
        "--output-path=stdout",
        f"--chrome-flags={flags}",
        "--quiet",
        # An error page is audited too; answering 404 costs it SEO's http-status-code audit.
        "--ignore-status-code",
    ]
    env = {**os.environ, "CHROME_PATH": CHROME}
    for _ in range(TRIES):
        _wait_for_quiet()
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode == 0:
            report = json.loads(done.stdout)
            scores = {category: _score(report, category) for category in CATEGORIES}
            return Scores(scores, _lost(report))
        print(f"(a run of {url} failed, made again: {done.stderr.strip()[-300:]})", flush=True)
    raise RuntimeError(f"Lighthouse failed {TRIES} times on {url}")


def _wait_for_quiet() -> None:
    deadline = time.monotonic() + QUIET_WAIT_SECONDS
    while os.getloadavg()[0] >= QUIET_LOAD:
        if time.monotonic() > deadline:
            print(f"(load {os.getloadavg()[0]:.2f}: a run started on a busy machine)", flush=True)
            return
        time.sleep(5)


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
