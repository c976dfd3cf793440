"""``paperboy ARGS`` on a SQLite database that may not grow beyond PAGES pages.

``python -m tests.cli.page_limited PAGES ARGS...``: every connection gets ``PRAGMA
max_page_count=PAGES``, so a write that needs a new page fails with SQLite's own "database or
disk is full" (SQLITE_FULL), the error of a full disk, where a test cannot mount a small one.
"""

from __future__ import annotations

import sys

from sqlalchemy import Engine, event

from app.cli.main import main


def limit_pages(pages: int) -> None:
    def on_connect(dbapi_connection: object, _record: object) -> None:
        dbapi_connection.execute(f"PRAGMA max_page_count={pages}")  # type: ignore[attr-defined]

    event.listen(Engine, "connect", on_connect)


if __name__ == "__main__":
    limit_pages(int(sys.argv[1]))
    sys.exit(main(sys.argv[2:]))
