"""A consistent copy of a SQLite database in use: SQLite's online backup API.

Copying the live file (``cp``) may catch a write half done, or miss what still sits in the
write-ahead log; the backup API copies the pages as one reader sees them, while writers go on.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path


def back_up_sqlite(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target``, written beside it first so a cut-short copy never passes
    for a whole one."""
    partial = target.with_name(f"{target.name}.partial")
    partial.unlink(missing_ok=True)
    with closing(sqlite3.connect(source)) as live, closing(sqlite3.connect(partial)) as copy:
        live.backup(copy)
    partial.replace(target)
