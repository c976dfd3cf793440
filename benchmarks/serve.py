"""Load-test the web app on the whole corpus: feed, trending page, search, a discussed paper.

    .venv/bin/python -m benchmarks.serve [--corpus ...jsonl.gz] [--matrix ...f16.npy]
        [--data-dir DIR] [--days 7] [--seconds 8]

Imports the 74,728-paper corpus and all its precomputed vectors into a SQLite database
(kept in ``--data-dir`` and reused when it is already there), ranks the corpus's last
``--days`` announcement days (topics, day editions, week and month editions), seeds a thread
of ``THREAD_COMMENTS`` comments under the newest day's first paper, then serves
``create_app`` with uvicorn in its own process and drives it with ``wrk`` (Debian's) from
another. The peer, in the same run and the same server: ``/api/version``, a trivial JSON
endpoint. Figures: requests/s at 64 connections, p50/p99 latency at 1 and 4 connections.
Both processes share this machine's cores; so do the load generator's.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session, sessionmaker

from accounts.discussion import checked_body, display_name, set_name
from accounts.reader import reader_row
from app.core.config import Settings, get_settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import Comment, CommentState, Edition, EditionItem, Paper
from app.core.schema import upgrade_to_head
from app.web.queries import plain_cards
from benchmarks.corpus_data import CORPUS, MATRIX, read_vectors, vectors_of
from ingest.bulk.importer import import_file
from ranking.embedder import query_embedder
from ranking.embeddings import import_matrix
from ranking.pipeline import default_scorer, publish_periods, rank_day
from search.in_process import SearchService, keyword_scores
from search.query import Filters, SearchSort

QUERIES = (
    "diffusion models for video generation",
    "reinforcement learning from human feedback",
    "graph neural networks molecules",
    "retrieval augmented generation hallucination",
    "vision language model benchmark",
    "protein structure prediction",
    "efficient attention long context",
    "robot manipulation policy learning",
    "federated learning privacy",
    "speech recognition low resource languages",
    "3D gaussian splatting",
    "mixture of experts routing",
    "chain of thought reasoning math",
    "medical image segmentation",
    "adversarial robustness certification",
    "code generation agents",
)
THREAD_COMMENTS = 200
THREAD_READER = "thread-bench@example.org"
THREAD_TEXT = "Does it hold for $\\alpha_i = \\sum_j w_{ij}$? See [a proof](https://example.org)."
CONNECTIONS_LATENCY = (1, 4)
CONNECTIONS_RATE = 64


@dataclass(frozen=True)
class Target:
    name: str
    paths: tuple[str, ...]


@dataclass(frozen=True)
class Run:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    errors: int


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--backend", choices=("torch", "onnx-int8"), default="torch")
    parser.add_argument(
        "--only",
        nargs="*",
        choices=("feed", "trending", "search", "thread"),
        default=None,
        help="measure these beside the trivial peer (default: all)",
    )
    parser.add_argument(
        "--breakdown", action="store_true", help="also time search's steps in-process first"
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("benchmarks/serve.py needs wrk (Debian: apt-get install wrk)")
    with _data_dir(args.data_dir) as data_dir:
        settings = get_settings(data_dir=data_dir, embedding_backend=args.backend)
        discussed = prepare(settings, args.corpus, args.matrix, args.days)
        if args.breakdown:
            breakdown(settings)
        with serve(data_dir, args.backend) as base:
            measure(base, args.seconds, args.only, discussed)


@contextmanager
def _data_dir(given: Path | None) -> Iterator[Path]:
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        yield given
        return
    with tempfile.TemporaryDirectory() as scratch:
        yield Path(scratch)


def prepare(settings: Settings, corpus: Path, matrix: Path, days: int) -> str:
    """The whole corpus, every vector, editions of the last ``days`` days (reused) and the
    seeded thread; the discussed paper's id."""
    with open_engine(settings) as engine:
        upgrade_to_head(engine)
        sessions = make_session_factory(engine)
        with sessions() as session:
            papers = session.scalar(select(func.count()).select_from(Paper)) or 0
            editions = session.scalar(select(func.count()).select_from(Edition)) or 0
        if papers and editions:
            print(f"reusing {settings.data_dir}: {papers} papers, {editions} editions")
        else:
            started = time.perf_counter()
            import_file(corpus, sessions)
            _import_vectors(sessions, settings, matrix)
            _rank(sessions, settings, days)
            print(f"prepared in {time.perf_counter() - started:.0f} s")
        discussed = discussed_paper(sessions)
        seed_thread(sessions, discussed, THREAD_COMMENTS)
        return discussed


def discussed_paper(sessions: sessionmaker[Session]) -> str:
    """The newest day edition's first paper: the one the thread is seeded under."""
    with sessions() as session:
        found = session.scalar(
            select(EditionItem.arxiv_id)
            .join(Edition, Edition.id == EditionItem.edition_id)
            .where(Edition.period == "day")
            .order_by(Edition.edition_date.desc(), EditionItem.position)
            .limit(1)
        )
    assert found is not None, "no day edition to discuss"
    return found


def seed_thread(
    sessions: sessionmaker[Session], arxiv_id: str, comments: int, replies: int = 0
) -> None:
    """A thread of ``comments`` top comments under ``arxiv_id`` by one reader, the first
    ``replies`` of them answered once, the text rendered by the comment rules; one
    executemany per level. A paper already discussed is left as it is."""
    body, html = checked_body(THREAD_TEXT)
    now, on_paper = datetime.now(UTC), Comment.arxiv_id == arxiv_id
    with session_scope(sessions) as session:
        if session.scalar(select(func.count()).select_from(Comment).where(on_paper)):
            return
        author = reader_row(session, THREAD_READER, now)
        if display_name(session, author) is None:
            set_name(session, author, "Benchmark reader")
        row = {"arxiv_id": arxiv_id, "subscriber_id": author.id, "body": body, "html": html}
        row |= {"state": CommentState.SHOWN, "created_at": now}
        session.execute(
            insert(Comment), [row | {"once": f"{arxiv_id} {n}"} for n in range(comments)]
        )
        first = session.scalars(
            select(Comment.id).where(on_paper).order_by(Comment.id).limit(replies)
        )
        answers = [row | {"once": f"{arxiv_id} r{n}", "parent_id": n} for n in first]
        if answers:
            session.execute(insert(Comment), answers)


def _import_vectors(sessions: object, settings: Settings, matrix: Path) -> None:
    rows = read_vectors(matrix)
    ids = sorted(rows)
    with session_scope(sessions) as session:  # type: ignore[arg-type]
        import_matrix(session, vectors_of(matrix, rows, ids), ids, settings.embedding_model)


def _rank(sessions: object, settings: Settings, days: int) -> None:
    with session_scope(sessions) as session:  # type: ignore[arg-type]
        all_days = sorted(
            day for day in session.scalars(select(Paper.announced_on).distinct()) if day
        )
    for day in all_days[-days:]:
        with session_scope(sessions) as session:  # type: ignore[arg-type]
            scorer = default_scorer(settings, session)
            _, publication = rank_day(session, day, settings, scorer)
            publish_periods(session, day, settings, scorer)
        print(publication.line())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def serve(
    data_dir: Path,
    backend: str,
    environment: Mapping[str, str] | None = None,
    factory: str = "app.web.app:create_app",
) -> Iterator[str]:
    """uvicorn serving ``factory`` (``create_app``; the demo's clock with
    ``app.cli.demo.site:create_demo_app``) in its own process, one worker, until the block
    ends; no rate limit unless ``environment`` (more variables for it) sets one."""
    port = _free_port()
    env = {
        **os.environ,
        "PAPERBOY_EMBEDDING_BACKEND": backend,
        "PAPERBOY_DATA_DIR": str(data_dir),
        "PAPERBOY_API_RATE_LIMIT_PER_MINUTE": "0",
        **(environment or {}),
    }
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        factory,
        "--factory",
        "--port",
        str(port),
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    server = subprocess.Popen(command, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(base)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def _wait(base: str) -> None:
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not come up")


def targets(only: list[str] | None = None, discussed: str = "") -> list[Target]:
    """The trivial peer first, then each measured endpoint (those named in ``only``)."""
    searches = tuple(f"/search?q={q.replace(' ', '+')}" for q in QUERIES)
    measured = {
        "feed": Target("JSON feed (/api/daily_papers, 50 items)", ("/api/daily_papers",)),
        "trending": Target("trending page (/)", ("/",)),
        "search": Target("search page (/search?q=..., 16 queries in turn)", searches),
        "thread": Target(
            f"paper page with a {THREAD_COMMENTS}-comment thread (/papers/...)",
            (f"/papers/{discussed}",),
        ),
    }
    peer = Target("trivial JSON (/api/version), the peer", ("/api/version",))
    return [peer, *(t for name, t in measured.items() if only is None or name in only)]


def warm(base: str, discussed: str) -> None:
    """First requests build the search index and load the query embedder: not measured."""
    started = time.perf_counter()
    for target in targets(None, discussed):
        for path in target.paths:
            with urllib.request.urlopen(base + path, timeout=600) as response:
                response.read()
    print(
        f"warm-up (index build, model load, first renders): {time.perf_counter() - started:.1f} s"
    )


def wrk(base: str, target: Target, connections: int, seconds: int) -> Run:
    script = (
        "paths = {"
        + ",".join(f'"{p}"' for p in target.paths)
        + "}\n"
        + (
            "i = 0\nrequest = function()\n  i = i % #paths + 1\n"
            "  return wrk.format('GET', paths[i])\nend\n"
        )
    )
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as lua:
        lua.write(script)
    threads = min(2, connections)
    command = [
        "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{seconds}s",
        "--latency",
        "-s",
        lua.name,
        base,
    ]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    Path(lua.name).unlink()
    return _parse(output)


def _parse(output: str) -> Run:
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    p50 = re.search(r"50%\s+([\d.]+)(us|ms|s)", output)
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", output)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    failed = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    count = int(errors.group(1)) if errors else 0
    count += sum(int(n) for n in failed.groups()) if failed else 0
    return Run(requests_per_second=rate, p50_ms=_ms(p50), p99_ms=_ms(p99), errors=count)


def _ms(match: re.Match[str] | None) -> float:
    assert match is not None
    return float(match.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[match.group(2)]


def measure(base: str, seconds: int, only: list[str] | None, discussed: str) -> None:
    warm(base, discussed)
    rows = []
    for target in targets(only, discussed):
        latency = {c: wrk(base, target, c, seconds) for c in CONNECTIONS_LATENCY}
        rate = wrk(base, target, CONNECTIONS_RATE, seconds)
        rows.append((target.name, latency, rate))
    peer = rows[0][2].requests_per_second
    print(
        f"\n{os.cpu_count()} cores shared by server and wrk; {seconds} s per run; {date.today()}\n"
    )
    print("| endpoint | req/s @64 | x peer | p50 @1 | p99 @1 | p50 @4 | p99 @4 | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, latency, rate in rows:
        errors = rate.errors + sum(run.errors for run in latency.values())
        print(
            f"| {name} | {rate.requests_per_second:,.0f} | {rate.requests_per_second / peer:.2f} "
            f"| {latency[1].p50_ms:.1f} ms | {latency[1].p99_ms:.1f} ms "
            f"| {latency[4].p50_ms:.1f} ms | {latency[4].p99_ms:.1f} ms | {errors} |"
        )


def breakdown(settings: Settings) -> None:
    """Median time of each step of a search, in this process, over the same 16 queries."""
    with open_engine(settings) as engine:
        sessions = make_session_factory(engine)
        search = SearchService(settings, sessions, query_embedder)
        search.search("warm up", Filters())  # builds the index, loads the model
        index = search.index()
        steps: dict[str, list[float]] = {}
        for query in QUERIES:
            vector = _step(steps, "query embedding", search._embed, query)
            _step(steps, "keyword scores (tf-idf)", keyword_scores, index, query)
            _step(steps, "semantic scores (matrix x vector)", index.vectors.dot, vector)
            found = _step(steps, "whole search (ids)", search.search, query, Filters())
            ids = found.page(SearchSort.relevance, 1, 30)
            with sessions() as session:
                _step(steps, "30 result cards from the database", plain_cards, session, ids)
    print("\n| search step, in-process | median ms |\n|---|---:|")
    for name, times in steps.items():
        print(f"| {name} | {statistics.median(times) * 1000:.1f} |")


def _step(steps: dict[str, list[float]], name: str, work: Callable[..., Any], *args: Any) -> Any:
    started = time.perf_counter()
    result = work(*args)
    steps.setdefault(name, []).append(time.perf_counter() - started)
    return result


if __name__ == "__main__":
    main()
