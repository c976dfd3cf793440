"""The search statement alone, in PostgreSQL: its parts' latency, query embedding apart.

    .venv/bin/python -m benchmarks.search_statement \
        --database-url postgresql+psycopg://paperboy@127.0.0.1:5434/scale_1000000 \
        [--data-dir /tmp/scale/postgresql_1000000] [--queries 120] [--repeat 3]

For ``scale.py``'s queries (HF ``ai_keywords``, three a query), each embedded once, it runs
the whole statement of ``search.in_database``, its word candidates alone (``by_words``) and
its nearest in meaning alone (``nearest``), in turn, ``--repeat`` times each, and keeps each
part's best time per query (the buffers warm, so the figures compare statements, not disks);
it prints p50 / p90 / mean over the queries. Run it from two checkouts (``git worktree``) on
the same store to compare two versions of the statement in one sitting.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from sqlalchemy import text
from sqlalchemy.orm import Session

from app.core.config import get_settings
from app.core.db import make_session_factory, open_engine
from benchmarks.scale import read_queries
from benchmarks.search_eval import HF
from ranking.embedder import query_embedder
from search.database_indexes import halfvec_text
from search.in_database import Scoring, _scoring_params, search_statement, tune_hnsw
from search.query import Filters


def parts(dimensions: int) -> dict[str, str]:
    """The whole statement and its two candidate steps, each ending in its own SELECT."""
    whole, _ = search_statement(Filters(), dimensions)
    words = whole[: whole.index(",\nnearest AS")] + " SELECT arxiv_id FROM by_words"
    nearest = whole[: whole.index(",\ncandidates AS")] + " SELECT arxiv_id FROM nearest"
    return {"statement": whole, "by_words": words, "nearest": nearest}


def best_ms(session: Session, statement: str, params: dict[str, object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        with session.begin():
            tune_hnsw(session)
            started = time.perf_counter()
            session.execute(text(statement), params).all()
            best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/scale/postgresql_1000000"))
    parser.add_argument("--queries", type=int, default=120)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    settings = get_settings(data_dir=args.data_dir, database_url=args.database_url)
    embedder = query_embedder(settings)
    scoring = _scoring_params(Scoring(settings.embedding_model))
    spent: dict[str, list[float]] = {}
    with open_engine(settings) as engine, make_session_factory(engine)() as session:
        for query in read_queries(HF, args.queries):
            vector = np.asarray(embedder.encode([query])[0], dtype=np.float32)
            params = scoring | {"query": query, "vector": halfvec_text(vector)}
            for name, statement in parts(len(vector)).items():
                spent.setdefault(name, []).append(best_ms(session, statement, params, args.repeat))
    for name, times in spent.items():
        ordered = sorted(times)
        print(
            f"{name:10s} p50 {statistics.median(times):6.1f} ms  "
            f"p90 {ordered[int(len(ordered) * 0.9)]:6.1f} ms  mean {statistics.mean(times):6.1f} ms"
        )


if __name__ == "__main__":
    main()
