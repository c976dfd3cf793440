"""Bulk-import throughput against the bare rate of reading and parsing the same file.

    .venv/bin/python benchmarks/import_corpus.py \
        ../shared/data/corpus/arxiv_listings_2025-03-18_2026-07-01.jsonl.gz \
        [--postgres-url postgresql+psycopg://paperboy:paperboy@127.0.0.1/postgres]

Prints papers/second for: reading and JSON-parsing the file (the peer every other figure is
compared with, measured in the same run), a first import into a fresh SQLite database, a
re-import of the unchanged file, and the same two on a fresh PostgreSQL database when a server
URL is given (a database is created there for the run and dropped afterwards).
"""

from __future__ import annotations

import argparse
import gzip
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from app.config import get_settings
from app.db import make_session_factory, open_engine, scratch_postgres_database
from app.schema import upgrade_to_head
from ingest.bulk_import import import_file


def read_and_parse(path: Path) -> int:
    with gzip.open(path, "rb") as lines:
        return sum(1 for line in lines if json.loads(line))


def timed(label: str, work: Callable[[], int], peer_rate: float | None) -> float:
    started = time.perf_counter()
    papers = work()
    seconds = time.perf_counter() - started
    rate = papers / seconds
    ratio = f"  ({rate / peer_rate:.2f} x read-and-parse)" if peer_rate else ""
    print(f"{label:<34} {papers:>7} papers in {seconds:6.2f} s = {rate:8.0f} papers/s{ratio}")
    return rate


def import_twice(label: str, database_url: str, path: Path, peer_rate: float) -> None:
    with open_engine(get_settings(database_url=database_url)) as engine:
        upgrade_to_head(engine)
        sessions = make_session_factory(engine)

        def run() -> int:
            summary = import_file(path, sessions)
            assert summary.exit_code == 0, summary.line()
            return summary.read

        timed(f"{label}: first import", run, peer_rate)
        timed(f"{label}: re-import (unchanged)", run, peer_rate)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--postgres-url", help="server URL; a fresh database is made there")
    args = parser.parse_args()
    peer = timed("read and parse (gzip + json)", lambda: read_and_parse(args.path), None)
    with tempfile.TemporaryDirectory() as directory:
        import_twice("SQLite", f"sqlite:///{directory}/bench.sqlite3", args.path, peer)
    if args.postgres_url:
        with scratch_postgres_database(args.postgres_url, "paperboy_bench") as url:
            import_twice("PostgreSQL", url, args.path, peer)
    timed("read and parse again (drift check)", lambda: read_and_parse(args.path), peer)


if __name__ == "__main__":
    main()
