"""Search over HTTP on a store already built: one web process, ``scale.py``'s queries in turn.

    .venv/bin/python -m benchmarks.search_http \
        --database-url postgresql+psycopg://paperboy:paperboy@127.0.0.1:5433/words_1m \
        --data-dir /tmp/words1m_data [--words-only] [--queries 120] [--seconds 600]

It reads the store into the file cache and the search's indexes into the server's buffers
(``scale.prewarm``), starts a web process as ``scale.py`` does (uvicorn, the store named by
PAPERBOY_* variables, the int8 query model unless ``PAPERBOY_EMBEDDING_BACKEND`` says
otherwise), waits until it answers, asks ten searches to open its connections, then asks
``/api/papers/search`` for each query once at one connection and prints p50 and p99 (the
query embedding included, as a reader waits). ``--words-only`` serves with
``PAPERBOY_SEARCH_SEMANTIC=false``. Run it from two checkouts on the same store to compare.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from benchmarks.scale import (
    Store,
    _get,
    _search_path,
    _wait,
    drive,
    prewarm,
    read_queries,
    serve,
)
from benchmarks.search_eval import HF


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--words-only", action="store_true")
    parser.add_argument("--queries", type=int, default=120)
    parser.add_argument("--seconds", type=int, default=600, help="at most")
    args = parser.parse_args()
    os.environ.setdefault("PAPERBOY_EMBEDDING_BACKEND", "onnx-int8")
    os.environ["PAPERBOY_SEARCH_SEMANTIC"] = "false" if args.words_only else "true"
    searches = [_search_path(query) for query in read_queries(HF, args.queries)]
    store = Store(kind="postgresql", papers=0, url=args.database_url, data_dir=args.data_dir)
    print(f"prewarm {prewarm(store):.0f} s", flush=True)
    with serve(store) as (base, _, _started):
        _wait(base)
        for path in searches[-10:]:
            _get(base + path)
        found = drive(base, searches, 1, args.seconds)
    print(
        f"{'words only' if args.words_only else 'with meaning'}: {found['requests']} searches, "
        f"p50 {found['p50_ms']:.1f} ms, p99 {found['p99_ms']:.1f} ms, "
        f"errors {found['errors']}, load {found['load_before']:.1f} -> {found['load_after']:.1f}"
    )


if __name__ == "__main__":
    main()
