"""Reads from a streaming standby: the replication lag, and what routing a read costs.

    .venv/bin/python -m benchmarks.replica_reads [--writes 200] [--seconds 10] [--connections 4]
        [--rounds 2] [--standbys 2] [--out replica_reads.json]

Starts a throwaway PostgreSQL primary (``tests/pg_cluster``), imports the bundled sample with
its vectors, and copies it into two streaming standbys with ``pg_basebackup``. Then:

- **lag**: ``--writes`` one-row transactions on the primary, each timed from its commit until
  the standby has replayed it (``pg_last_wal_replay_lsn`` polled), median and p95;
- **serving**: one uvicorn web process reading the primary alone, then one reading from one
  standby, then from two (``PAPERBOY_DATABASE_REPLICA_URLS``), in turn for ``--rounds`` rounds,
  each driven with the same GETs (paper pages and their API records) over ``--connections``
  connections for ``--seconds``: requests/s, p50 and p99, errors, and the transactions each
  standby counted (the reads it answered). The peer is the first process, in the same run.

Primary, standby, web process and load generator share this machine's cores, so the ratio is
the routing's overhead, not the capacity a standby on its own machine adds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, text

from app.cli.main import main as paperboy
from app.core.config import get_settings
from benchmarks.scale import drive
from benchmarks.serve import serve
from tests.conftest import SAMPLE_PATH
from tests.pg_cluster import Cluster, postgres_binaries, streaming_standby, throwaway_cluster
from tests.ranking.conftest import SAMPLE_IDS, SAMPLE_MATRIX

TICKS = "CREATE TABLE IF NOT EXISTS benchmark_ticks (n integer)"
REPLAYED = "SELECT pg_last_wal_replay_lsn() >= CAST(:lsn AS pg_lsn)"
TRANSACTIONS = (
    "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"
)
DATA_DIR = Path("/tmp/replica-reads")
# Seconds PostgreSQL may take to publish a backend's statistics after its transactions.
STATS_FLUSH = 1.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--standbys", type=int, choices=(1, 2), default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    binaries, why = postgres_binaries()
    if binaries is None:
        raise SystemExit(why)
    with (
        throwaway_cluster(binaries) as primary,
        _filled(primary) as ids,
        streaming_standby(primary) as first,
        streaming_standby(primary) as second,
    ):
        report = {
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
            "lag_ms": lag(primary, first, args.writes),
            "serving": serving(primary, [first, second][: args.standbys], ids, args),
        }
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))


@contextmanager
def _filled(primary: Cluster) -> Iterator[list[str]]:
    """The bundled sample and its vectors in the primary, before any standby copies it."""
    yield fill(primary)


def fill(primary: Cluster) -> list[str]:
    """The bundled sample and its vectors in the primary; its paper ids."""
    settings = get_settings(database_url=primary.url, data_dir=DATA_DIR)
    assert paperboy(["migrate"], settings) == 0
    assert paperboy(["import", str(SAMPLE_PATH), "--quiet"], settings) == 0
    vectors = ["import-embeddings", "--matrix", str(SAMPLE_MATRIX), "--ids", str(SAMPLE_IDS)]
    assert paperboy([*vectors, "--quiet"], settings) == 0
    with _engine(primary) as engine, engine.connect() as connection:
        connection.execute(text(TICKS))
        found = connection.execute(text("SELECT arxiv_id FROM papers ORDER BY arxiv_id"))
        return [str(row[0]) for row in found]


@contextmanager
def _engine(cluster: Cluster) -> Iterator[Engine]:
    engine = create_engine(cluster.url, isolation_level="AUTOCOMMIT")
    try:
        yield engine
    finally:
        engine.dispose()


def lag(primary: Cluster, standby: Cluster, writes: int) -> dict[str, float]:
    """From each one-row commit on the primary until the standby has replayed it."""
    spent: list[float] = []
    with (
        _engine(primary) as source,
        _engine(standby) as copy,
        source.connect() as writer,
        copy.connect() as reader,
    ):
        for n in range(writes):
            writer.execute(text("INSERT INTO benchmark_ticks VALUES (:n)"), {"n": n})
            committed = time.perf_counter()
            lsn = writer.execute(text("SELECT pg_current_wal_lsn()::text")).scalar_one()
            while not reader.execute(text(REPLAYED), {"lsn": lsn}).scalar_one():
                time.sleep(0.0002)
            spent.append((time.perf_counter() - committed) * 1000)
    ordered = sorted(spent)
    return {
        "writes": writes,
        "median": statistics.median(ordered),
        "p95": ordered[int(0.95 * (len(ordered) - 1))],
        "max": ordered[-1],
    }


def serving(
    primary: Cluster, standbys: list[Cluster], ids: list[str], args: argparse.Namespace
) -> dict[str, Any]:
    """The same GETs through a web process reading from 0, 1, … standbys, in turn."""
    paths = [f"/{kind}/{arxiv_id}" for arxiv_id in ids for kind in ("papers", "api/papers")]
    setups = {f"{n} standbys": standbys[:n] for n in range(len(standbys) + 1)}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in setups}
    for _ in range(args.rounds):
        for name, used in setups.items():
            before = [_transactions(standby) for standby in standbys]
            with _server(primary.url, ",".join(standby.url for standby in used)) as base:
                drive(base, paths, args.connections, args.seconds)  # warm
                run = drive(base, paths * 200, args.connections, args.seconds)
            time.sleep(STATS_FLUSH)
            after = [_transactions(standby) for standby in standbys]
            run["standby_transactions"] = [b - a for a, b in zip(before, after, strict=True)]
            runs[name].append(run)
    rates = {name: _median(done, "requests_per_s") for name, done in runs.items()}
    return {
        "runs": runs,
        "requests_per_s": rates,
        "p50_ms": {name: _median(done, "p50_ms") for name, done in runs.items()},
        "ratio_to_primary_only": {name: rate / rates["0 standbys"] for name, rate in rates.items()},
    }


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(float(run[key]) for run in runs)


def _transactions(cluster: Cluster) -> int:
    with _engine(cluster) as engine, engine.connect() as connection:
        return int(connection.execute(text(TRANSACTIONS)).scalar_one())


def _server(primary: str, replicas: str) -> AbstractContextManager[str]:
    """One web process with the defaults, reading from ``replicas`` (none: the primary)."""
    environment = {"PAPERBOY_DATABASE_URL": primary, "PAPERBOY_DATABASE_REPLICA_URLS": replicas}
    return serve(DATA_DIR, "torch", environment)


if __name__ == "__main__":
    main()
