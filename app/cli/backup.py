"""``paperboy backup FILE``: a copy of a SQLite database that is safe to take while it serves.

PostgreSQL has its own tools (``pg_dump -Fc``), which the refusal names.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sqlalchemy.engine import make_url

from app.core.backup import back_up_sqlite
from app.core.config import Settings

POSTGRES_HINT = (
    "paperboy backup copies SQLite databases; for PostgreSQL run "
    "`pg_dump -Fc --file=FILE DATABASE` (docs/deploy.md, Backup and restore)"
)
KEEP_HINT = "keep PAPERBOY_SECRET_KEY with it: without it every link already mailed is refused"


def add_arguments(parser: argparse.ArgumentParser) -> None:
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
