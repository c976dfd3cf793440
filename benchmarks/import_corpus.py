"""Bulk-import throughput against the bare rate of reading and parsing the same file.

    .venv/bin/python benchmarks/import_corpus.py \
        ../shared/data/corpus/arxiv_listings_2025-03-18_2026-07-01.jsonl.gz \
        [--rounds 3] [--postgres-url postgresql+psycopg://paperboy:paperboy@127.0.0.1/postgres]

Each round measures, one after the other: reading and JSON-parsing the file (the peer every
other figure is compared with), a first import into a fresh SQLite database and a re-import of
the unchanged file, and the same two on a fresh PostgreSQL database when a server URL is given
(a database is made there for the round and dropped afterwards). An import's ratio is its rate
over the peer's rate in the same round: this virtual machine's speed swings by a third from
minute to minute, so rounds are printed one by one, then the median of each ratio.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from app.core.config import get_settings
from app.core.db import make_session_factory, open_engine
from app.core.schema import upgrade_to_head
from ingest.bulk.importer import import_file
from search.word_index_load import WordIndexAfterLoad

PEER = "read and parse (gzip + json)"


def read_and_parse(path: Path) -> int:
    with gzip.open(path, "rb") as lines:
        return sum(1 for line in lines if json.loads(line))


def timed(work: Callable[[], int]) -> tuple[int, float]:
    started = time.perf_counter()
    papers = work()
    return papers, time.perf_counter() - started


def import_twice(database_url: str, path: Path) -> tuple[float, float, dict[str, float]]:
    """Seconds of a first import into an empty database, then of a re-import, and the
    seconds of each step the first one did after its rows."""
    finished: dict[str, float] = {}
    with open_engine(get_settings(database_url=database_url)) as engine:
        upgrade_to_head(engine)
        sessions = make_session_factory(engine)

        def run() -> int:
            # As `paperboy import` runs it: PostgreSQL's word index built after a first import.
            summary = import_file(path, sessions, deferred_work=(WordIndexAfterLoad(),))
            assert summary.exit_code == 0, summary.line()
            print(f"    {summary.line()}", flush=True)
            finished.update(summary.finished_after)
            return summary.read

        first, again = timed(run)[1], timed(run)[1]
        return first, again, finished


@contextmanager
def scratch_postgres_database(server_url: str) -> Iterator[str]:
    """A fresh database on the server for one round, dropped afterwards; yields its URL.

    The test suite has its own (``tests/postgres.py``): this script runs by path, where neither
    ``tests`` nor ``benchmarks`` is importable, and it is the only benchmark on PostgreSQL.
    """
    name = f"paperboy_bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def one_round(
    path: Path, postgres_url: str | None, sqlite: bool = True
) -> tuple[int, dict[str, float]]:
    papers, peer = timed(lambda: read_and_parse(path))
    seconds = {PEER: peer}
    if sqlite:
        with tempfile.TemporaryDirectory() as directory:
            url = f"sqlite:///{directory}/bench.sqlite3"
            first, again, _ = import_twice(url, path)
            seconds["SQLite: first import"], seconds["SQLite: re-import"] = first, again
    if postgres_url:
        with scratch_postgres_database(postgres_url) as url:
            first, again, finished = import_twice(url, path)
        # The goal's measure: reading, rows and documents, without the counts and GIN index
        # (timed apart, on the summary line).
        apart = finished.get("word counts", 0.0) + finished.get("GIN index", 0.0)
        seconds["PostgreSQL: first import"] = first
        seconds["PostgreSQL: rows and documents"] = first - apart
        seconds["PostgreSQL: re-import"] = again
    return papers, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--postgres-url", help="server URL; a fresh database is made there")
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL's imports only")
    args = parser.parse_args()
    ratios: dict[str, list[float]] = {}
    for number in range(1, args.rounds + 1):
        papers, seconds = one_round(args.path, args.postgres_url, sqlite=not args.no_sqlite)
        print(f"round {number}: {papers} papers")
        for label, taken in seconds.items():
            ratio = seconds[PEER] / taken
            shown = "" if label == PEER else f"  ({ratio:.2f} x read-and-parse)"
            print(f"  {label:<30} {taken:6.2f} s = {papers / taken:8.0f} papers/s{shown}")
            ratios.setdefault(label, []).append(ratio)
    print(f"median over {args.rounds} rounds:")
    for label, values in ratios.items():
        if label != PEER:
            print(f"  {label:<30} {statistics.median(values):.2f} x read-and-parse")


if __name__ == "__main__":
    main()
