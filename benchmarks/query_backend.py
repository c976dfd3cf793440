"""The web's query model, torch against int8 ONNX: memory, search quality, time per query.

    .venv/bin/python -m benchmarks.query_backend \
        [--postgres postgresql+psycopg://paperboy@127.0.0.1:5433/paperboy_eval_c] \
        [--work /tmp/query_backend] [--searches 20]

For each ``search_query_backend``: start a real web process (uvicorn, as ``benchmarks.scale``
does) on a PostgreSQL database with pgvector holding the real corpus, answer ``--searches``
searches over HTTP and read its memory (RSS, USS, PSS); then, in this process, the known-item
evaluation of ``benchmarks.search_eval`` (the in-process index of the whole corpus, the shipped
fusion and cut-off) with the queries' vectors from that backend, MRR@10 and recall@10 on the
report half, and the median time to embed one query (on ``search_threads`` threads). The int8
model is built first under ``--work`` if missing (torch, once), so no web process builds it.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.core.config import Settings, get_settings
from app.core.vectors import Matrix
from benchmarks import scale, search_eval
from benchmarks.corpus_data import CORPUS, MATRIX, read_vectors, vectors_of
from ranking.embedder import query_embedder, resolve_model_path
from ranking.onnx_model import cached_model_path
from search.index import make_index
from search.query import FUSION

BACKENDS = ("torch", "onnx-int8")
POSTGRES = "postgresql+psycopg://paperboy@127.0.0.1:5433/paperboy_eval_c"
TIMED = 200


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=POSTGRES)
    parser.add_argument("--work", type=Path, default=Path("/tmp/query_backend"))
    parser.add_argument("--searches", type=int, default=20)
    args = parser.parse_args()
    settings = get_settings(data_dir=args.work)
    source = Path(resolve_model_path(settings.embedding_model))
    cached_model_path(source, args.work / "models")
    store = scale.Store(kind="postgresql", papers=0, url=args.postgres, data_dir=args.work)
    searches = scale.read_queries(search_eval.HF, args.searches)
    memory = {backend: web_memory(store, backend, searches) for backend in BACKENDS}
    for backend, mib in memory.items():
        print(
            f"{backend}: web process after {len(searches)} searches: RSS {mib['rss']:.0f} MiB, "
            f"USS {mib['uss']:.0f}, PSS {mib['pss']:.0f}"
        )
    evaluate(settings)


def web_memory(store: scale.Store, backend: str, searches: list[str]) -> dict[str, float]:
    os.environ["PAPERBOY_SEARCH_QUERY_BACKEND"] = backend
    with scale.serve(store) as (base, process, _):
        scale._wait(base)
        for query in searches:
            scale._get(base + scale._search_path(query))
        return scale._memory(process)


def evaluate(settings: Settings) -> None:
    documents = search_eval.read_documents(CORPUS)
    ids = [d.arxiv_id for d in documents]
    index = make_index(
        documents, vectors_of(MATRIX, read_vectors(MATRIX), ids), np.ones(len(ids), dtype=bool)
    )
    queries = search_eval.read_queries(search_eval.HF, index, 3)
    held = [q for q in queries if not q.tune]
    texts = [q.text for q in held]
    print(
        f"\nreport half, {len(held)} queries\n\n"
        "| query model | MRR@10 | recall@10 | meaning only MRR@10 | ms a query (median) |\n"
        "|---|---:|---:|---:|---:|"
    )
    for backend in BACKENDS:
        embedder = query_embedder(settings.model_copy(update={"search_query_backend": backend}))
        embedder.encode(["warm up"])
        # One query at a time, as a web process embeds them (int8 activations scale per batch).
        vectors, spent = one_by_one(embedder.encode, texts)
        scored = search_eval.score(index, held, vectors)
        mrr, recall, _ = search_eval.quality(search_eval.hybrid(index, FUSION), scored)
        meaning, _, _ = search_eval.quality(search_eval.meaning_only, scored)
        print(
            f"| {backend} | {mrr:.3f} | {recall:.3f} | {meaning:.3f} | "
            f"{np.median(spent[:TIMED]) * 1000:.1f} |"
        )


def one_by_one(encode: Callable[[Sequence[str]], Matrix], texts: list[str]) -> tuple[Matrix, Any]:
    """Each text's vector and the seconds its encoding took."""
    rows, spent = [], []
    for text in texts:
        started = time.perf_counter()
        rows.append(encode([text])[0])
        spent.append(time.perf_counter() - started)
    return np.stack(rows), np.array(spent)


if __name__ == "__main__":
    main()
