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


def import_twice(database_url: str, path: Path) -> tuple[float, float]:
    """Seconds of a first import into an empty database, then of a re-import."""
    with open_engine(get_settings(database_url=database_url)) as engine:
        upgrade_to_head(engine)
        sessions = make_session_factory(engine)

        def run() -> int:
            # As `paperboy import` runs it: PostgreSQL's word index built after a first import.
            summary = import_file(path, sessions, deferred_work=(WordIndexAfterLoad(),))
            assert summary.exit_code == 0, summary.line()
            print(f"    {summary.line()}")
            return summary.read

        return timed(run)[1], timed(run)[1]


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


def one_round(path: Path, postgres_url: str | None) -> tuple[int, dict[str, float]]:
    papers, peer = timed(lambda: read_and_parse(path))
    seconds = {PEER: peer}
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite:///{directory}/bench.sqlite3"
        seconds["SQLite: first import"], seconds["SQLite: re-import"] = import_twice(url, path)
    if postgres_url:
        with scratch_postgres_database(postgres_url) as url:
            first, again = import_twice(url, path)
            seconds["PostgreSQL: first import"], seconds["PostgreSQL: re-import"] = first, again
    return papers, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--postgres-url", help="server URL; a fresh database is made there")
    args = parser.parse_args()
    ratios: dict[str, list[float]] = {}
    for number in range(1, args.rounds + 1):
        papers, seconds = one_round(args.path, args.postgres_url)
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
