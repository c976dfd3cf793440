"""``paperboy import``: a bulk JSON-lines file into the store, with its summary and rejections
printed (the work is :func:`app.services.store.import_papers`'); ``paperboy backup FILE``: a
copy of a SQLite database that is safe to take while it serves.

PostgreSQL has its own tools for a copy (``pg_dump -Fc``), which the backup's refusal names.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from sqlalchemy.engine import make_url

from app.cli.common import command_sessions
from app.core.config import Settings
from app.core.db import back_up_sqlite
from app.core.logs import print_or_log_report
from app.services.store import ImportSummary, Rejection, import_papers

MAX_PRINTED_REJECTIONS = 20
# Statements computing the word index's documents at once: beyond the cores of a large
# database server, more only wait; the command's connection pool holds them all.
MAX_INDEX_WORKERS = 8


def add_import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="JSON-lines file, plain or .gz")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--index-workers",
        type=int,
        choices=range(1, MAX_INDEX_WORKERS + 1),
        default=min(os.cpu_count() or 1, MAX_INDEX_WORKERS),
        metavar="N",
        help="after a first PostgreSQL import, compute the word index with N statements at once, "
        f"one database core each (default: this machine's cores, at most {MAX_INDEX_WORKERS})",
    )


def run_import(args: argparse.Namespace, settings: Settings) -> int:
    path: Path = args.path
    if not path.is_file():
        print(f"paperboy import: no such file: {path}", file=sys.stderr)
        return 1
    with command_sessions(settings) as sessions:
        summary = import_papers(
            sessions,
            path,
            show_progress=not args.quiet and sys.stderr.isatty() and not settings.log_json,
            on_rejection=_rejection_printer(path),
            index_workers=args.index_workers,
        )
    _print_summary(summary)
    return summary.exit_code


def _rejection_printer(path: Path) -> Callable[[Rejection], None]:
    printed = 0

    def print_rejection(rejection: Rejection) -> None:
        nonlocal printed
        printed += 1
        if printed <= MAX_PRINTED_REJECTIONS:
            print(f"{path}:{rejection.line}: rejected: {rejection.reason}", file=sys.stderr)

    return print_rejection


def _print_summary(summary: ImportSummary) -> None:
    hidden = len(summary.rejections) - MAX_PRINTED_REJECTIONS
    if hidden > 0:
        print(f"... and {hidden} more rejected lines", file=sys.stderr)
    if summary.fatal:
        print(f"paperboy import: {summary.fatal}", file=sys.stderr)
    print_or_log_report([f"imported {summary.line()}"], command="import")


POSTGRES_HINT = (
    "paperboy backup copies SQLite databases; for PostgreSQL run "
    "`pg_dump -Fc --file=FILE DATABASE` (docs/deploy.md, Backup and restore)"
)
KEEP_HINT = "keep PAPERBOY_SECRET_KEY with it: without it every link already mailed is refused"


def add_backup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="the file to write (must not exist)")


def run_backup(args: argparse.Namespace, settings: Settings) -> int:
    url = make_url(settings.resolved_database_url)
    if url.get_backend_name() != "sqlite" or not url.database:
        print(POSTGRES_HINT, file=sys.stderr)
        return 1
    target: Path = args.path
    if target.exists():
        print(f"paperboy backup: {target} exists; name a new file", file=sys.stderr)
        return 1
    source = Path(url.database)
    if not source.is_file():
        print(f"paperboy backup: no database at {source}", file=sys.stderr)
        return 1
    back_up_sqlite(source, target)
    print(f"backed up {source} to {target}; {KEEP_HINT}")
    return 0
