"""The saved search index on the whole corpus: build, files, a web process's start and memory.

    .venv/bin/python -m benchmarks.search_index [--data-dir DIR] [--corpus ...] [--matrix ...]
        [--searches 20]

A SQLite store of the 74,728-paper corpus with all its precomputed vectors (kept in
``--data-dir`` and reused). Measures: the full rebuild the embed step runs
(:func:`search.index_files.write_search_index`), the size of each file, the embed step's
check when the index is current; then web processes served by uvicorn (the default
settings: semantic search, preloaded): start to ready (``/healthz`` answers, which the app's
start holds back until the index is open and the model loaded), ready to the first answered
search, then ``--searches`` searches and the process's memory (RSS, PSS, USS from
``/proc/PID/smaps_rollup``) alone and with a second process beside it. For comparison, a
process that builds the index in memory as before the files existed, after the same searches.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.core.config import Settings, get_settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.schema import upgrade_to_head
from benchmarks.corpus_data import CORPUS, MATRIX, read_vectors, vectors_of
from benchmarks.serve import QUERIES
from benchmarks.serve import _free_port as free_port
from ingest.bulk.importer import import_file
from ranking.embeddings import import_matrix
from search.index import store_state
from search.index_files import current_generation, index_directory
from search.index_writer import refresh_search_index, write_search_index

# The old way, in a process of its own: build in memory, then search with the web's code.
IN_MEMORY = """
import sys, time
from app.core.config import get_settings
from app.core.db import make_engine, make_session_factory
from search.in_process import keyword_scores, matches
from search.query import Filters
from ranking.embedder import make_embedder
from search.index import build_index, closeness
settings = get_settings()
embedder = make_embedder(settings)
embedder.encode(["warm"])
started = time.perf_counter()
with make_session_factory(make_engine(settings, role="web"))() as session:
    index = build_index(session, settings.embedding_model)
for i, query in enumerate(sys.argv[1:]):
    meaning = closeness(index.vectors, embedder.encode([query])[0])
    matches(index, keyword_scores(index, query), meaning, Filters())
    if i == 0:
        print(f"{time.perf_counter() - started:.2f}", flush=True)
print("done", flush=True)
input()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("var/bench-search-index"))
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--searches", type=int, default=20)
    args = parser.parse_args()
    settings = get_settings(data_dir=args.data_dir)
    prepare(settings, args.corpus, args.matrix)
    build(settings)
    queries = [QUERIES[i % len(QUERIES)] for i in range(args.searches)]
    with served(settings) as first:
        searched(first, queries)
        print(f"after {len(queries)} searches: {memory(first.pid)}")
        with served(settings) as second:
            searched(second, queries)
            print(f"two processes, each: {memory(first.pid)} | {memory(second.pid)}")
    in_memory(settings, queries)


def prepare(settings: Settings, corpus: Path, matrix: Path) -> None:
    with open_engine(settings) as engine:
        upgrade_to_head(engine)
        sessions = make_session_factory(engine)
        with sessions() as session:
            if store_state(session, settings.embedding_model).papers:
                return
        import_file(corpus, sessions)
        rows = read_vectors(matrix)
        ids = sorted(rows)
        with session_scope(sessions) as session:
            import_matrix(session, vectors_of(matrix, rows, ids), ids, settings.embedding_model)


def build(settings: Settings) -> None:
    directory = index_directory(settings.data_dir)
    with open_engine(settings) as engine, make_session_factory(engine)() as session:
        written = write_search_index(session, directory, settings.embedding_model)
        print(f"full rebuild (the embed step's): {written.papers} papers, {written.seconds:.1f} s")
        started = time.perf_counter()
        assert refresh_search_index(session, directory, settings.embedding_model) is None
        print(f"embed step, index current: {1000 * (time.perf_counter() - started):.0f} ms")
    generation = directory / (current_generation(directory) or "")
    sizes = {path.name: path.stat().st_size for path in sorted(generation.iterdir())}
    print(f"files: {sum(sizes.values()) / 2**20:.1f} MiB in all")
    for name, size in sizes.items():
        print(f"  {name}: {size / 2**20:.2f} MiB")


class Server:
    def __init__(self, process: subprocess.Popen[bytes], base: str) -> None:
        self.process, self.base, self.pid = process, base, process.pid


@contextmanager
def served(settings: Settings) -> Iterator[Server]:
    port = free_port()
    environment = os.environ | {"PAPERBOY_DATA_DIR": str(settings.data_dir)}
    command = [sys.executable, "-m", "uvicorn", "app.web.app:create_app", "--factory"]
    started = time.perf_counter()
    process = subprocess.Popen(
        [*command, "--port", str(port), "--log-level", "warning"], env=environment
    )
    server = Server(process, f"http://127.0.0.1:{port}")
    try:
        wait_ready(server)
        print(f"start to ready (index open, model loaded): {time.perf_counter() - started:.1f} s")
        yield server
    finally:
        process.terminate()
        process.wait(timeout=30)


def wait_ready(server: Server) -> None:
    while True:
        try:
            with urllib.request.urlopen(f"{server.base}/healthz", timeout=5):
                return
        except OSError:
            if server.process.poll() is not None:
                raise SystemExit("the server exited") from None
            time.sleep(0.05)


def searched(server: Server, queries: list[str]) -> None:
    timings = []
    for query in queries:
        url = f"{server.base}/api/papers/search?" + urllib.parse.urlencode({"q": query})
        started = time.perf_counter()
        with urllib.request.urlopen(url, timeout=600) as answer:
            assert answer.status == 200
        timings.append(time.perf_counter() - started)
    later = sorted(timings[1:]) or [0.0]
    print(
        f"ready to first answered search: {1000 * timings[0]:.0f} ms; "
        f"the next {len(later)}: median {1000 * later[len(later) // 2]:.0f} ms"
    )


def in_memory(settings: Settings, queries: list[str]) -> None:
    environment = os.environ | {"PAPERBOY_DATA_DIR": str(settings.data_dir)}
    process = subprocess.Popen(
        [sys.executable, "-c", IN_MEMORY, *queries],
        env=environment,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdin is not None
    seconds = process.stdout.readline().strip()
    assert process.stdout.readline().strip() == "done"
    print(f"in memory, as before: first search after {seconds} s; then {memory(process.pid)}")
    process.stdin.write("\n")
    process.stdin.close()
    process.wait(timeout=60)


def memory(pid: int) -> str:
    """RSS, PSS and USS (private pages) of a process, in MiB."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":")
        fields[name] = int(value.split()[0])
    uss = fields["Private_Clean"] + fields["Private_Dirty"]
    return (
        f"RSS {fields['Rss'] / 1024:.0f}, PSS {fields['Pss'] / 1024:.0f}, USS {uss / 1024:.0f} MiB"
    )


if __name__ == "__main__":
    main()
