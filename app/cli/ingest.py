"""``paperboy ingest`` and ``paperboy backfill``: live arXiv and Hugging Face ingest by hand.

Each prints one line per source, category and day, writes the same to the ingest log, and
exits 0 when all went well, 1 when a source failed, 2 when one was partial or stale.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import UTC, date, datetime

from app.core.config import Settings
from app.core.db import open_engine, session_scope
from app.core.schema import require_current_schema
from ingest.backfill import backfill, cross_check
from ingest.live import Context, close, enrich_day, ingest_hf, ingest_rss, make_context
from ingest.live_store import latest_listing_day
from ingest.records import arxiv_categories
from ingest.run_log import RunReport, exit_code, save_reports

SOURCES = ("rss", "api", "oai", "hf", "all")


def add_ingest_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--date", type=_day, help="announcement day YYYY-MM-DD (RSS: only the latest one)"
    )
    parser.add_argument("--source", choices=SOURCES, default="all", help="default: all")
    _add_categories(parser)


def add_backfill_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="from_day", type=_day, required=True, help="YYYY-MM-DD")
    parser.add_argument("--until", dest="until_day", type=_day, help="YYYY-MM-DD (default: --from)")
    _add_categories(parser)


def run_ingest(args: argparse.Namespace, settings: Settings) -> int:
    categories = args.categories or settings.categories
    return _run(settings, lambda context: _ingest(context, args.source, categories, args.date))


def run_backfill(args: argparse.Namespace, settings: Settings) -> int:
    categories = args.categories or settings.categories
    until_day = args.until_day or args.from_day
    if until_day < args.from_day:
        print(
            f"paperboy backfill: --until {until_day} is before --from {args.from_day}",
            file=sys.stderr,
        )
        return 1
    return _run(settings, lambda context: backfill(context, categories, args.from_day, until_day))


def _run(settings: Settings, job: Callable[[Context], list[RunReport]]) -> int:
    with open_engine(settings, "worker") as engine:
        require_current_schema(engine)
        context = make_context(settings, engine)
        try:
            reports = job(context)
        finally:
            close(context)
        save_reports(context.sessions, reports)
    for report in reports:
        print(report.line())
    return exit_code(reports)


def _ingest(
    context: Context, source: str, categories: tuple[str, ...], day: date | None
) -> list[RunReport]:
    reports: list[RunReport] = []
    if source in ("rss", "all"):
        reports += ingest_rss(context, categories, day)
        day = day or max((r.announced_on for r in reports if r.announced_on), default=None)
    target = day or _latest_listing_day(context) or datetime.now(UTC).date()
    if source in ("api", "all"):
        reports += enrich_day(context, target, categories)
    if source == "oai":
        reports += cross_check(context, categories, target)
    if source in ("hf", "all"):
        reports += ingest_hf(context, target)
    return reports


def _latest_listing_day(context: Context) -> date | None:
    """Without --date, API and HF work on the newest day a listing is stored for."""
    with session_scope(context.sessions) as session:
        return latest_listing_day(session)


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


def _categories(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names or arxiv_categories(list(names)) != names:
        raise argparse.ArgumentTypeError(
            f"not a comma-separated list of arXiv categories: {text!r}"
        )
    return names


def _add_categories(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--categories", type=_categories, help="e.g. cs.AI,cs.LG (default: PAPERBOY_CATEGORIES)"
    )
