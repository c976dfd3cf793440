"""``paperboy ingest`` and ``paperboy backfill``: live arXiv and Hugging Face ingest by hand;
``paperboy import-hf-signals``: Hugging Face signals from flattened record files.

Ingest and backfill print one line per source, category and day, write the same to the ingest
log, and exit 0 when all went well, 1 when a source failed, 2 when one was partial or stale.
The import prints a line per file and one of what was stored, and exits 0 when every line was
taken, 2 when some were rejected, 1 when a file could not be read to its end.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from app.cli.common import command_sessions, print_report
from app.core.clock import utc_now
from app.core.config import Settings
from app.services.ingest import Source, arxiv_categories, backfill, import_hf_signals, ingest

SOURCES = tuple(source.value for source in Source)


def add_ingest_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--date", type=_day, help="announcement day YYYY-MM-DD (RSS: only the latest one)"
    )
    parser.add_argument("--source", choices=SOURCES, default=Source.ALL.value, help="default: all")
    _add_categories(parser)


def add_backfill_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="from_day", type=_day, required=True, help="YYYY-MM-DD")
    parser.add_argument("--until", dest="until_day", type=_day, help="YYYY-MM-DD (default: --from)")
    _add_categories(parser)


def add_import_hf_signals_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", metavar="FILE", type=Path, nargs="+", help="JSON-lines records, plain or .gz"
    )


def run_ingest(args: argparse.Namespace, settings: Settings) -> int:
    with command_sessions(settings, "worker") as sessions:
        source, day, categories = Source(args.source), args.date, args.categories
        report = ingest(
            settings, sessions, utc_now(), source=source, day=day, categories=categories
        )
    return print_report(report)


def run_backfill(args: argparse.Namespace, settings: Settings) -> int:
    until_day = args.until_day or args.from_day
    if until_day < args.from_day:
        print(
            f"paperboy backfill: --until {until_day} is before --from {args.from_day}",
            file=sys.stderr,
        )
        return 1
    with command_sessions(settings, "worker") as sessions:
        report = backfill(settings, sessions, args.from_day, until_day, args.categories)
    return print_report(report)


def run_import_hf_signals(args: argparse.Namespace, settings: Settings) -> int:
    with command_sessions(settings) as sessions:
        report = import_hf_signals(sessions, args.paths)
    return print_report(report)


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
