"""Search at scale: 75k, 300k and 1M papers on PostgreSQL (pgvector) and SQLite (persisted index).

    .venv/bin/python -m benchmarks.scale [--sizes 75000,300000,1000000] \
        [--stores postgresql,sqlite] [--postgres postgresql+psycopg://paperboy@127.0.0.1:5434] \
        [--work /tmp/scale] [--seconds 20] [--reuse] [--out scale.json]

For each size and store: build the store from ``synthetic_corpus`` (the real corpus first,
then synthetic papers; ``scale_load`` times the raw load and each index build apart), measure
its size, start a real web process (uvicorn, ``app.web.app:create_app --factory``, the store
named by PAPERBOY_* variables), time it until it answers ``/healthz`` and then until its first
search is answered, drive ``/api/papers/search`` (JSON; the query embedding is computed by the
web process, as for any reader) with ``wrk`` at 1 and 8 connections, then the paper page
(``/papers/{id}``, which shows 6 similar papers: the searcher's ``similar`` plus the page's own
queries) at 1 connection, and read the web process's memory (psutil: RSS, USS, PSS). On
PostgreSQL it also measures HNSW recall@10 against exact search (the same ORDER BY with index
scans off) for the queries' vectors, at several ``hnsw.ef_search``. Queries are the Hugging
Face ``ai_keywords`` of corpus papers, three each, as ``search_eval`` makes them. The load
average is read around each measurement. ``--reuse`` keeps a store built by an earlier run and
measures it again (its build figures are then taken from ``--out``).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import http.client
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import psutil
from sqlalchemy import Engine, create_engine, func, select, text

from app.core.config import get_settings
from app.core.db import make_session_factory, open_engine
from app.core.models import Paper
from app.core.schema import upgrade_to_head
from app.core.vectors import Matrix
from benchmarks import synthetic_corpus
from benchmarks.scale_load import GIN_INDEX, halfvec_texts, load_postgresql, load_sqlite
from benchmarks.search_eval import HF
from ranking.embedder import make_embedder, query_embedder
from search.database_indexes import DEFAULT_DIMENSIONS, index_name
from search.in_database import EF_SEARCH as WEB_EF_SEARCH
from search.index_files import index_directory
from search.query import Filters
from search.searcher import make_searcher

SIZES = (75_000, 300_000, 1_000_000)
STORES = ("postgresql", "sqlite")
POSTGRES = "postgresql+psycopg://paperboy@127.0.0.1:5434"
QUERIES = 200
RECALL_QUERIES = 100
BREAKDOWN_QUERIES = 50
# pgvector's default, two more, and the web's (with its relaxed iterative scan).
EF_SEARCH = (40, 100, 200)
SIMILAR_PAGES = 200
DEPTH = 10


@dataclass(frozen=True)
class Store:
    kind: str
    papers: int
    url: str
    data_dir: Path

    @property
    def name(self) -> str:
        return f"{self.kind} {self.papers:,}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--stores", default=",".join(STORES))
    parser.add_argument("--postgres", default=POSTGRES, help="server URL, no database")
    parser.add_argument("--work", type=Path, default=Path("/tmp/scale"))
    parser.add_argument("--seconds", type=int, default=60, help="at most, per latency run")
    parser.add_argument("--reuse", action="store_true", help="measure stores built before")
    parser.add_argument(
        "--backend", choices=("torch", "onnx-int8"), default="torch", help="query embedder"
    )
    parser.add_argument("--build-only", action="store_true", help="build, measure later")
    parser.add_argument("--drop", action="store_true", help="delete each store once measured")
    parser.add_argument("--out", type=Path, default=Path("scale.json"))
    args = parser.parse_args()
    results = json.loads(args.out.read_text()) if args.out.exists() else {}
    results["machine"] = machine()
    os.environ["PAPERBOY_EMBEDDING_BACKEND"] = args.backend  # the web's, and this process's
    queries = read_queries(HF, QUERIES)
    source = synthetic_corpus.read_source()
    for papers in (int(size) for size in args.sizes.split(",")):
        for kind in args.stores.split(","):
            store = _store(kind, papers, args.postgres, args.work)
            key = f"{kind}/{papers}"
            previous = results.get(key, {})
            print(f"\n== {store.name} ==", flush=True)
            reused = args.reuse and _exists(store)
            built = reuse(store, previous) if reused else build(store, source)
            measured = {} if args.build_only else measure(store, queries, args.seconds)
            results[key] = {**previous, **built, **measured}
            args.out.write_text(json.dumps(results, indent=2))
            if args.drop:
                remove(store)
    print_table(results)


def machine() -> dict[str, Any]:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def read_queries(path: Path, count: int) -> list[str]:
    """The first three ``ai_keywords`` of HF papers, ``count`` of them in a fixed order."""
    found: dict[str, str] = {}
    with gzip.open(path, "rt") as lines:
        for line in lines:
            record = json.loads(line)
            words = [word for word in record.get("ai_keywords") or [] if word.strip()]
            if words and record["arxiv_id"] not in found:  # (one record's keywords are blank)
                found[record["arxiv_id"]] = ", ".join(words[:3])[:200]
    ordered = sorted(found, key=lambda i: hashlib.sha256(i.encode()).hexdigest())
    return [found[arxiv_id] for arxiv_id in ordered[:count]]


def _store(kind: str, papers: int, server: str, work: Path) -> Store:
    data_dir = work / f"{kind}_{papers}"
    url = f"{server}/scale_{papers}" if kind == "postgresql" else ""
    return Store(kind=kind, papers=papers, url=url, data_dir=data_dir)


def _exists(store: Store) -> bool:
    try:
        with _engine(store) as engine, engine.connect() as connection:
            count = connection.execute(select(func.count()).select_from(Paper)).scalar_one()
    except Exception:  # a missing database or file: not built
        return False
    return bool(count == store.papers)


@contextmanager
def _engine(store: Store) -> Iterator[Engine]:
    settings = get_settings(data_dir=store.data_dir, database_url=store.url)
    with open_engine(settings) as engine:
        yield engine


def build(store: Store, source: synthetic_corpus.Source) -> dict[str, Any]:
    remove(store)
    store.data_dir.mkdir(parents=True)
    if store.kind == "postgresql":
        _server_sql(store, f"CREATE DATABASE scale_{store.papers}")
    papers = synthetic_corpus.batches(source, store.papers)
    model = get_settings().embedding_model
    started = time.perf_counter()
    with _engine(store) as engine:
        upgrade_to_head(engine)
        if store.kind == "postgresql":
            timings = load_postgresql(engine, papers, model)
        else:
            timings = load_sqlite(engine, store.data_dir, papers, model)
    built = {"build_s": timings.steps, "build_total_s": time.perf_counter() - started}
    return {**built, "size": store_size(store), "load_during_build": os.getloadavg()}


def reuse(store: Store, previous: dict[str, Any]) -> dict[str, Any]:
    """A store built by an earlier run, its schema brought to this code's head (a web process
    on an older schema never says ready), with the figures of its build."""
    with _engine(store) as engine:
        upgrade_to_head(engine)
    return previous


def remove(store: Store) -> None:
    if store.kind == "postgresql":
        _server_sql(store, f"DROP DATABASE IF EXISTS scale_{store.papers} WITH (FORCE)")
    shutil.rmtree(store.data_dir, ignore_errors=True)


def _server_sql(store: Store, statement: str) -> None:
    server = create_engine(store.url.rsplit("/", 1)[0] + "/postgres", isolation_level="AUTOCOMMIT")
    with server.connect() as connection:
        connection.execute(text(statement))
    server.dispose()


def store_size(store: Store) -> dict[str, int]:
    if store.kind == "sqlite":
        files = sum(f.stat().st_size for f in store.data_dir.glob("paperboy.sqlite3*"))
        index = index_directory(store.data_dir)
        persisted = sum(f.stat().st_size for f in index.rglob("*") if f.is_file())
        return {
            "database_bytes": files,
            "index_files_bytes": persisted,
            "total_bytes": files + persisted,
        }
    with _engine(store) as engine, engine.connect() as connection:

        def size(sql: str) -> int:
            return int(connection.execute(text(sql)).scalar_one())

        return {
            "total_bytes": size("SELECT pg_database_size(current_database())"),
            "hnsw_bytes": size(f"SELECT pg_relation_size('{index_name(DEFAULT_DIMENSIONS)}')"),
            "gin_bytes": size(f"SELECT pg_relation_size('{GIN_INDEX}')"),
            "embeddings_table_bytes": size("SELECT pg_total_relation_size('paper_embeddings')"),
        }


def measure(store: Store, queries: list[str], seconds: int) -> dict[str, Any]:
    searches = [_search_path(q) for q in queries]
    pages = [f"/papers/{i}" for i in _sample_ids(store)]
    found: dict[str, Any] = {"backend": get_settings().embedding_backend}
    if store.kind == "postgresql":
        found["prewarm_s"] = prewarm(store)
    with serve(store) as (base, process, started):
        found["start_to_ready_s"] = _wait(base) - started
        ready = time.perf_counter()
        _get(base + searches[0])
        found["ready_to_first_search_s"] = time.perf_counter() - ready
        for path in searches[-10:]:  # a few answers before timing: connections, caches
            _get(base + path)
        for connections in (1, 8):
            found[f"search_at_{connections}"] = drive(base, searches, connections, seconds)
        found["paper_page_at_1"] = drive(base, pages, 1, seconds)
        found["web_memory_mib"] = _memory(process)
    found["in_process_ms"] = breakdown(store, queries[:BREAKDOWN_QUERIES])
    if store.kind == "postgresql":
        found["recall_at_10"] = recall(store, queries[:RECALL_QUERIES])
    return found


# The indexes a search walks, kept in the server's buffers (4 GB here; all else is larger).
SEARCH_INDEXES = ("pk_papers", "pk_paper_embeddings", "paper_search_pkey", GIN_INDEX)
# Every table, index and TOAST of the database (at 1M it fits this machine's memory).
_RELATIONS = (
    "SELECT c.oid::regclass::text FROM pg_class AS c JOIN pg_namespace AS n "
    "ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'i', 't') "
    "AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
)


def prewarm(store: Store) -> float:
    """Seconds to read the whole database into the system's file cache and the search's
    indexes into the server's buffers (``pg_prewarm``), so that every run starts from the
    same state, that of a server which has answered for a while, and not from what the last
    step left (the recall's exact scan reads every vector; a CI run reads its own)."""
    started = time.perf_counter()
    with _engine(store) as engine, engine.begin() as connection:
        connection.execute(text("CREATE EXTENSION IF NOT EXISTS pg_prewarm"))
        tables = connection.execute(text(_RELATIONS)).scalars().all()
        indexes = [*SEARCH_INDEXES, index_name(DEFAULT_DIMENSIONS)]
        warm = text("SELECT pg_prewarm(CAST(:name AS regclass), CAST(:mode AS text))")
        for name, mode in [(t, "read") for t in tables] + [(i, "buffer") for i in indexes]:
            connection.execute(warm, {"name": name, "mode": mode})
    return time.perf_counter() - started


def breakdown(store: Store, queries: list[str]) -> dict[str, float]:
    """Median ms, in this process with the web's searcher: the query embedding, a whole
    search (embedding included), and ``similar`` (6 papers) for the same number of papers."""
    settings = get_settings(data_dir=store.data_dir, database_url=store.url)
    embedder = make_embedder(settings)
    embedder.encode(["warm up"])
    with _engine(store) as engine:
        searcher = make_searcher(settings, make_session_factory(engine), query_embedder)
        searcher.warm()
        searcher.search("warm up", Filters())
        ids = _sample_ids(store)[: len(queries)]
        return {
            "query_embedding": _median_ms(lambda q: embedder.encode([q]), queries),
            "search": _median_ms(lambda q: searcher.search(q, Filters()), queries),
            "similar": _median_ms(lambda i: searcher.similar(i, 6), ids),
        }


def _median_ms(work: Callable[[str], object], inputs: list[str]) -> float:
    spent = []
    for one in inputs:
        started = time.perf_counter()
        work(one)
        spent.append(time.perf_counter() - started)
    return float(np.median(spent) * 1000)


def _search_path(query: str) -> str:
    return "/api/papers/search?" + urllib.parse.urlencode({"q": query})


def _sample_ids(store: Store) -> list[str]:
    """Papers spread over the whole store (real and synthetic), in a fixed order."""
    with _engine(store) as engine, engine.connect() as connection:
        ids = connection.execute(select(Paper.arxiv_id).order_by(Paper.arxiv_id)).scalars().all()
    step = max(1, len(ids) // SIMILAR_PAGES)
    return list(ids[::step][:SIMILAR_PAGES])


@contextmanager
def serve(store: Store) -> Iterator[tuple[str, psutil.Process, float]]:
    """One uvicorn process (no workers) serving the store, until the block ends."""
    port = _free_port()
    env = {
        **os.environ,
        "PAPERBOY_DATA_DIR": str(store.data_dir),
        "PAPERBOY_API_RATE_LIMIT_PER_MINUTE": "0",
    }
    if store.url:
        env["PAPERBOY_DATABASE_URL"] = store.url
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "app.web.app:create_app",
        "--factory",
        "--port",
        str(port),
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    started = time.perf_counter()
    server = subprocess.Popen(command, env=env)
    try:
        yield f"http://127.0.0.1:{port}", psutil.Process(server.pid), started
    finally:
        server.terminate()
        server.wait(timeout=60)


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait(base: str) -> float:
    """When the server first answered ``/healthz``; its last answer when it never did.

    (A store whose schema is behind the code's answers 503 "schema out of date" for ever:
    run ``paperboy migrate`` against it. Silence here once cost a session a false lead.)"""
    last = "no answer (not listening)"
    for _ in range(3000):
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=5) as response:
                if response.status == 200:
                    return time.perf_counter()
        except urllib.error.HTTPError as error:
            last = f"{error.code} {error.read().decode(errors='replace')}"
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"the server was not ready within the wait; /healthz: {last}")


def _get(url: str) -> None:
    with urllib.request.urlopen(url, timeout=600) as response:
        response.read()


def drive(base: str, paths: list[str], connections: int, seconds: float) -> dict[str, Any]:
    """Each path once, in turn, over ``connections`` kept-alive connections (or until
    ``seconds`` have passed): each request's latency, percentiles over all of them."""
    before, started = os.getloadavg()[0], time.perf_counter()
    todo = iter(paths)
    lock = threading.Lock()
    latencies: list[float] = []
    errors: list[int] = []

    def client() -> None:
        host = urllib.parse.urlsplit(base)
        connection = http.client.HTTPConnection(host.hostname or "", host.port, timeout=600)
        while time.perf_counter() - started < seconds:
            with lock:
                path = next(todo, None)
            if path is None:
                break
            sent = time.perf_counter()
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            with lock:
                latencies.append(time.perf_counter() - sent)
                if response.status != 200:
                    errors.append(response.status)
        connection.close()

    threads = [threading.Thread(target=client) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    spent = time.perf_counter() - started
    p50, p99 = np.percentile(np.array(latencies) * 1000, [50, 99])
    return {
        "p50_ms": float(p50),
        "p99_ms": float(p99),
        "requests": len(latencies),
        "requests_per_s": len(latencies) / spent,
        "errors": len(errors),
        "error_statuses": sorted(set(errors)),
        "load_before": before,
        "load_after": os.getloadavg()[0],
    }


def _memory(process: psutil.Process) -> dict[str, float]:
    """RSS, USS and PSS, and RSS split into the process's own memory (anonymous: heap, the
    query model) and pages of mapped files (the SQLite index: the page cache's, shared)."""
    info = process.memory_full_info()
    found = {name: getattr(info, name) / 2**20 for name in ("rss", "uss", "pss")}
    status = Path(f"/proc/{process.pid}/status").read_text().splitlines()
    for line in status:
        name, _, value = line.partition(":")
        if name in ("RssAnon", "RssFile"):
            found[name.lower()] = int(value.split()[0]) / 2**10  # kB
    return found


def recall(store: Store, queries: list[str]) -> dict[str, Any]:
    """HNSW's top 10 against the exact top 10 (index scans off), per ``hnsw.ef_search``."""
    vectors = make_embedder(get_settings()).encode(queries)
    with _engine(store) as engine:
        exact, exact_s = _top(engine, vectors, "SET LOCAL enable_indexscan = off")
        found: dict[str, Any] = {"queries": len(queries), "exact_ms": exact_s * 1000}
        settings = {f"ef_search_{ef}": f"SET LOCAL hnsw.ef_search = {ef}" for ef in EF_SEARCH}
        settings[f"web_ef_search_{WEB_EF_SEARCH}"] = (
            f"SET LOCAL hnsw.ef_search = {WEB_EF_SEARCH}; "
            "SET LOCAL hnsw.iterative_scan = relaxed_order"
        )
        for name, setting in settings.items():
            approximate, seconds = _top(engine, vectors, setting)
            hits = [len(set(a) & set(e)) / DEPTH for a, e in zip(approximate, exact, strict=True)]
            found[name] = {"recall": float(np.mean(hits)), "ms": seconds * 1000}
    return found


def _top(engine: Engine, vectors: Matrix, setting: str) -> tuple[list[list[str]], float]:
    """Each vector's top 10 (the web's ORDER BY, without filters) and the mean time of one."""
    model = get_settings().embedding_model
    size = DEFAULT_DIMENSIONS
    query = text(
        f"SELECT arxiv_id FROM paper_embeddings WHERE model = :model AND dimensions = {size} "
        f"ORDER BY embedding::halfvec({size}) <=> CAST(:q AS halfvec({size})) LIMIT {DEPTH}"
    )
    tops, spent = [], 0.0
    for literal in halfvec_texts(vectors):
        with engine.begin() as connection:
            for statement in setting.split("; "):
                connection.execute(text(statement))
            started = time.perf_counter()
            tops.append(list(connection.execute(query, {"q": literal, "model": model}).scalars()))
            spent += time.perf_counter() - started
    return tops, spent / len(vectors)


def print_table(results: dict[str, Any]) -> None:
    print(f"\n{results['machine']}\n")
    print(
        "| store | papers | raw load | index build | size | ready | first search "
        "| p50/p99 @1 | p50/p99 @8 | paper page p50 | RSS / USS | recall@10 |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key, row in results.items():
        if "/" not in key or "search_at_1" not in row:
            continue
        print(_row(key, row))


def _row(key: str, row: dict[str, Any]) -> str:
    kind, papers = key.split("/")
    steps = row.get("build_s", {})
    raw = next((v for k, v in steps.items() if k.startswith("raw load")), float("nan"))
    index = sum(v for k, v in steps.items() if not k.startswith(("raw", "of which")))
    one, eight, page = row["search_at_1"], row["search_at_8"], row["paper_page_at_1"]
    memory = row["web_memory_mib"]
    recall_text = "n/a"
    if "recall_at_10" in row:
        recall_text = " / ".join(
            f"{v['recall']:.3f}" for k, v in row["recall_at_10"].items() if "ef_search" in k
        )
    return (
        f"| {kind} | {int(papers):,} | {raw:.0f} s | {index:.0f} s "
        f"| {row.get('size', {}).get('total_bytes', 0) / 2**30:.2f} GiB "
        f"| {row['start_to_ready_s']:.1f} s | {row['ready_to_first_search_s'] * 1000:.0f} ms "
        f"| {one['p50_ms']:.0f}/{one['p99_ms']:.0f} ms "
        f"| {eight['p50_ms']:.0f}/{eight['p99_ms']:.0f} ms | {page['p50_ms']:.0f} ms "
        f"| {memory['rss']:.0f} / {memory['uss']:.0f} MiB | {recall_text} |"
    )


if __name__ == "__main__":
    main()
