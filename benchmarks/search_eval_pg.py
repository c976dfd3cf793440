"""Search quality in PostgreSQL: ``search_eval``'s known-item queries, answered by the database.

    .venv/bin/python -m benchmarks.search_eval_pg --database-url postgresql+psycopg://... \
        [--hf ...] [--keywords 3]

The database must hold the corpus and its vectors, migrated with pgvector (``paperboy
migrate``, ``paperboy import``, ``paperboy import-embeddings``). Each query's candidates and
their scores come from ``search.in_database`` (HNSW nearest in meaning, full-text matches);
the scale of the keyword term (``ts_rank`` is not a tf-idf cosine) is chosen on the tune half
of the queries only, with the shipped cut-off, and MRR@10 is reported on the other half for:
that score fusion with the cut-off, reciprocal rank fusion over the same candidates, each
signal alone, and the shipped statement itself (with its latency, query embedding apart).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import text
from sqlalchemy.orm import Session

from app.core.config import get_settings
from app.core.db import make_session_factory, open_engine
from app.core.vectors import Matrix
from benchmarks.search_eval import DEPTH, HF, _tune_half
from ranking.embedder import make_embedder
from search.database_indexes import halfvec_text
from search.in_database import Scoring, _scoring_params, candidates_statement, tune_hnsw
from search.in_database import run_search as run_statement
from search.query import FUSION, Filters, Words, relevance

SCALES = (1.0, 2.0, 4.0, 6.0, 8.0, 12.0, 16.0)
RRF_K = 60
RECALL_QUERIES = 200


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    target: str
    tune: bool


@dataclass(frozen=True, slots=True)
class Candidates:
    """One query's candidates with their scores (keyword unscaled)."""

    query: Query
    ids: list[str]
    meaning: np.ndarray
    keyword: np.ndarray
    coverage: np.ndarray
    has_vector: np.ndarray


Ranker = Callable[[Candidates], list[str]]


def read_queries(path: Path, known: set[str], keywords: int) -> list[Query]:
    """As ``search_eval.read_queries``: one per corpus paper with HF keywords."""
    found: dict[str, Query] = {}
    with gzip.open(path, "rt") as lines:
        for line in lines:
            record = json.loads(line)
            arxiv_id = record["arxiv_id"]
            if arxiv_id not in known or not record.get("ai_keywords") or arxiv_id in found:
                continue
            query = ", ".join(record["ai_keywords"][:keywords])[:200]
            found[arxiv_id] = Query(query, arxiv_id, _tune_half(arxiv_id))
    return list(found.values())


def candidates(session: Session, query: Query, vector: Matrix, model: str) -> Candidates:
    statement, params = candidates_statement(Filters(), len(vector))
    statement += " SELECT arxiv_id, meaning, keyword, coverage, has_vector FROM scored"
    params |= _scoring_params(Scoring(model, keyword_scale=1.0))
    params |= {"query": query.text, "vector": halfvec_text(vector)}
    tune_hnsw(session)
    rows = session.execute(text(statement), params).all()
    scores = np.array([(row[1], row[2], row[3]) for row in rows], dtype=np.float64).reshape(-1, 3)
    return Candidates(
        query=query,
        ids=[row[0] for row in rows],
        meaning=scores[:, 0],
        keyword=scores[:, 1],
        coverage=scores[:, 2],
        has_vector=np.array([row[4] for row in rows], dtype=bool),
    )


def hnsw_recall(session: Session, vectors: Matrix, model: str) -> float:
    """The share of the exact 10 nearest that the index's 10 nearest hold (as served)."""
    order = "embedding::halfvec(384) <=> CAST(:vector AS halfvec(384))"
    nearest = "SELECT arxiv_id FROM paper_embeddings WHERE model = :model AND dimensions = 384 "
    served = text(f"{nearest} ORDER BY {order} LIMIT 10")
    # "+ 0" hides the order from the index: a full scan, whatever plan psycopg has prepared.
    exact = text(f"{nearest} ORDER BY ({order}) + 0 LIMIT 10")
    held = 0
    for vector in vectors:
        params = {"model": model, "vector": halfvec_text(vector)}
        with session.begin():
            tune_hnsw(session)
            found = set(session.execute(served, params).scalars())
        held += len(found & set(session.execute(exact, params).scalars()))
        session.rollback()
    return held / (10 * len(vectors))


def fused(scale: float) -> Ranker:
    """Score fusion with the shipped cut-off, the keyword term scaled by ``scale``."""

    def ranked(found: Candidates) -> list[str]:
        words = Words(found.keyword * scale, found.coverage)
        scores = relevance(words, found.meaning, found.has_vector, FUSION)
        return _top(found.ids, scores)

    return ranked


def reciprocal_rank_fusion(found: Candidates) -> list[str]:
    """1/(k + rank) in meaning plus 1/(k + rank) in keywords, over the same candidates."""
    score = np.zeros(len(found.ids))
    for signal in (found.meaning, found.keyword):
        order = np.argsort(-signal, kind="stable")
        ranks = np.empty(len(order))
        ranks[order] = np.arange(1, len(order) + 1)
        score += np.where(signal > 0, 1.0 / (RRF_K + ranks), 0.0)
    return _top(found.ids, score)


def keyword_only(found: Candidates) -> list[str]:
    return _top(found.ids, np.where(found.keyword > 0, found.keyword, -np.inf))


def meaning_only(found: Candidates) -> list[str]:
    return _top(found.ids, found.meaning)


def _top(ids: list[str], scores: np.ndarray) -> list[str]:
    order = np.argsort(-scores, kind="stable")[:DEPTH]
    return [ids[i] for i in order if np.isfinite(scores[i])]


def mrr(ranker: Ranker, found: Sequence[Candidates]) -> tuple[float, float]:
    """MRR@10 and recall@10."""
    ranks = [_rank(ranker(one), one.query.target) for one in found]
    return sum(1 / r for r in ranks if r) / len(ranks), sum(1 for r in ranks if r) / len(ranks)


def _rank(ids: list[str], target: str) -> int:
    return ids.index(target) + 1 if target in ids else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--hf", type=Path, default=HF)
    parser.add_argument("--keywords", type=int, default=3)
    args = parser.parse_args()
    settings = get_settings(database_url=args.database_url)
    with open_engine(settings) as engine:
        sessions = make_session_factory(engine)
        with sessions() as session:
            known = set(session.execute(text("SELECT arxiv_id FROM papers")).scalars())
        queries = read_queries(args.hf, known, args.keywords)
        vectors = make_embedder(settings).encode([q.text for q in queries])
        found = []
        with sessions() as session:
            for query, vector in zip(queries, vectors, strict=True):
                with session.begin():
                    found.append(candidates(session, query, vector, settings.embedding_model))
            recall = hnsw_recall(session, vectors[:RECALL_QUERIES], settings.embedding_model)
        print(f"{len(known)} papers, {len(queries)} queries")
        print(f"HNSW recall@10 against exact search ({RECALL_QUERIES} queries): {recall:.3f}")
        scale = tune([f for f in found if f.query.tune])
        held = [f for f in found if not f.query.tune]
        report(held, scale)
        shipped(sessions, held, vectors, queries, Scoring(settings.embedding_model, FUSION, scale))


def tune(found: list[Candidates]) -> float:
    tried = {scale: mrr(fused(scale), found)[0] for scale in SCALES}
    for scale, value in tried.items():
        print(f"  tune half ({len(found)} queries): keyword scale {scale}: MRR@10 {value:.3f}")
    return max(tried, key=lambda scale: tried[scale])


def report(held: list[Candidates], scale: float) -> None:
    print(f"\nreport half, {len(held)} queries\n\n| method | MRR@10 | recall@10 |\n|---|---:|---:|")
    methods: dict[str, Ranker] = {
        "keywords only (ts_rank)": keyword_only,
        "meaning only (HNSW, halfvec)": meaning_only,
        f"reciprocal rank fusion (k = {RRF_K}), no cut-off": reciprocal_rank_fusion,
        f"score fusion with the cut-off, keyword scale {scale}": fused(scale),
    }
    for name, ranker in methods.items():
        value, recall = mrr(ranker, held)
        print(f"| {name} | {value:.3f} | {recall:.3f} |")


def shipped(
    sessions: Callable[[], Session],
    held: list[Candidates],
    vectors: Matrix,
    queries: list[Query],
    scoring: Scoring,
) -> None:
    """The served statement on the report half: MRR@10 and its latency."""
    vector_of = {q.target: v for q, v in zip(queries, vectors, strict=True)}
    ranks, seconds = [], []
    with sessions() as session:
        for one in held:
            started = time.perf_counter()
            with session.begin():
                result = run_statement(
                    session, one.query.text, vector_of[one.query.target], Filters(), scoring
                )
            seconds.append(time.perf_counter() - started)
            top = [result.ids[m.row] for m in result.matches[:DEPTH]]
            ranks.append(_rank(top, one.query.target))
    value = sum(1 / r for r in ranks if r) / len(ranks)
    p50, p99 = statistics.median(seconds), float(np.quantile(seconds, 0.99))
    print(
        f"\nshipped statement: MRR@10 {value:.3f}; latency p50 {p50 * 1000:.1f} ms, "
        f"p99 {p99 * 1000:.1f} ms (query embedding apart)"
    )


if __name__ == "__main__":
    main()
