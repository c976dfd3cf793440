"""The search statement alone, in PostgreSQL: its parts' latency, query embedding apart.

    .venv/bin/python -m benchmarks.search_statement \
        --database-url postgresql+psycopg://paperboy@127.0.0.1:5434/scale_1000000 \
        [--data-dir /tmp/scale/postgresql_1000000] [--queries 120] [--repeat 3] \
        [--words-only] [--known-items] [--answers OUT.json] [--same-as EARLIER.json]

For ``scale.py``'s queries (HF ``ai_keywords``, three a query), each embedded once, it runs
the whole statement of ``search.in_database``, its word candidates alone (``by_words``) and
its nearest in meaning alone (``nearest``), in turn, ``--repeat`` times each, and keeps each
part's best time per query (the buffers warm, so the figures compare statements, not disks);
it prints p50 / p90 / p99 / mean over the queries. ``--words-only`` times the statement as
served with ``PAPERBOY_SEARCH_SEMANTIC`` off (no query vector), and its word candidates.
Run it from two checkouts (``git worktree``) on the same store to compare two versions of the
statement in one sitting: ``--answers`` writes each query's answer (the ids, best first),
and ``--same-as`` reads another version's and prints how many answers are the same whole,
in their first 10, and the share of the first 20 held by both. ``--known-items`` asks
``search_eval_pg``'s known-item queries instead (the report half, each a stored paper's HF
keywords) and prints the statement's MRR@10 and recall@10 for its paper.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np
from sqlalchemy import text
from sqlalchemy.orm import Session

from app.core.config import get_settings
from app.core.db import make_session_factory, open_engine
from benchmarks.scale import read_queries
from benchmarks.search_eval import DEPTH, HF
from benchmarks.search_eval_pg import _rank as rank_of
from benchmarks.search_eval_pg import read_queries as read_known_items
from ranking.embedder import query_embedder
from search.database_indexes import halfvec_text
from search.in_database import Scoring, _scoring_params, search_statement, tune_hnsw
from search.query import Filters


def parts(dimensions: int | None) -> dict[str, str]:
    """The whole statement and its candidate steps, each ending in its own SELECT."""
    whole, _ = search_statement(Filters(), dimensions)
    if dimensions is None:
        words = whole[: whole.index(",\ncandidates AS")] + " SELECT arxiv_id FROM by_words"
        return {"statement": whole, "by_words": words}
    words = whole[: whole.index(",\nnearest AS")] + " SELECT arxiv_id FROM by_words"
    nearest = whole[: whole.index(",\ncandidates AS")] + " SELECT arxiv_id FROM nearest"
    return {"statement": whole, "by_words": words, "nearest": nearest}


def best_ms(
    session: Session, statement: str, params: dict[str, object], repeat: int
) -> tuple[float, list[str]]:
    """The statement's best time of ``repeat`` runs, and the ids it answered."""
    best, answer = float("inf"), list[str]()
    for _ in range(repeat):
        with session.begin():
            tune_hnsw(session)
            started = time.perf_counter()
            answer = [row[0] for row in session.execute(text(statement), params)]
            best = min(best, time.perf_counter() - started)
    return best * 1000, answer


def known_items(session: Session, count: int) -> dict[str, str]:
    """The first ``count`` known-item queries of the report half, each with its paper."""
    known = set(session.execute(text("SELECT arxiv_id FROM papers")).scalars())
    session.rollback()
    held = [query for query in read_known_items(HF, known, 3) if not query.tune]
    return {query.text: query.target for query in held[:count]}


def known_item_figures(answers: dict[str, list[str]], targets: dict[str, str]) -> str:
    """MRR@10 and recall@10 of the answers for their known papers."""
    ranks = [rank_of(answers[query][:DEPTH], target) for query, target in targets.items()]
    mrr = sum(1 / rank for rank in ranks if rank) / len(ranks)
    recall = sum(map(bool, ranks)) / len(ranks)
    return f"known items: MRR@{DEPTH} {mrr:.3f}, recall@{DEPTH} {recall:.3f}"


def agreement(answers: dict[str, list[str]], earlier: dict[str, list[str]]) -> str:
    """How many answers are the same whole and in their first 10; the first 20's overlap."""
    queries = [query for query in answers if query in earlier]
    whole = sum(answers[q] == earlier[q] for q in queries)
    first = sum(answers[q][:10] == earlier[q][:10] for q in queries)
    shared = [
        len(set(answers[q][:20]) & set(earlier[q][:20])) / max(1, len(earlier[q][:20]))
        for q in queries
    ]
    return (
        f"same answer {whole} of {len(queries)}, same first 10 {first}, "
        f"first 20 held by both {statistics.mean(shared):.3f} (mean share)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/scale/postgresql_1000000"))
    parser.add_argument("--queries", type=int, default=120)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--words-only", action="store_true")
    parser.add_argument("--known-items", action="store_true")
    parser.add_argument("--answers", type=Path)
    parser.add_argument("--same-as", type=Path)
    args = parser.parse_args()
    settings = get_settings(data_dir=args.data_dir, database_url=args.database_url)
    embedder = query_embedder(settings)
    scoring = _scoring_params(Scoring(settings.embedding_model))
    spent: dict[str, list[float]] = {}
    answers: dict[str, list[str]] = {}
    with open_engine(settings) as engine, make_session_factory(engine)() as session:
        targets = known_items(session, args.queries) if args.known_items else {}
        for query in list(targets) or read_queries(HF, args.queries):
            params = scoring | {"query": query}
            dimensions = None
            if not args.words_only:
                vector = np.asarray(embedder.encode([query])[0], dtype=np.float32)
                params["vector"], dimensions = halfvec_text(vector), len(vector)
            for name, statement in parts(dimensions).items():
                took, answer = best_ms(session, statement, params, args.repeat)
                spent.setdefault(name, []).append(took)
                if name == "statement":
                    answers[query] = answer
    for name, times in spent.items():
        ordered = sorted(times)
        print(
            f"{name:10s} p50 {statistics.median(times):6.1f} ms  "
            f"p90 {ordered[int(len(ordered) * 0.9)]:6.1f} ms  "
            f"p99 {ordered[int(len(ordered) * 0.99)]:6.1f} ms  "
            f"mean {statistics.mean(times):6.1f} ms"
        )
    if targets:
        print(known_item_figures(answers, targets))
    if args.answers:
        args.answers.write_text(json.dumps(answers))
    if args.same_as:
        print(agreement(answers, json.loads(args.same_as.read_text())))


if __name__ == "__main__":
    main()
