"""Search quality: known-item search over the real corpus, keywords vs meaning vs hybrid.

    .venv/bin/python -m benchmarks.search_eval [--corpus ...] [--matrix ...] [--hf ...] \
        [--keywords 3]

Each query is a paper's Hugging Face ``ai_keywords`` (its first ``--keywords``, as a reader
would type a few), the target is that paper, and the haystack is the whole corpus (74,728
papers, its precomputed vectors). Queries are split in two halves by a hash of the paper id:
the fusion's weights and cut-off are chosen on the *tune* half and reported on the *report*
half. Reports MRR@10 and recall@10 of keyword-only, meaning-only, the former reciprocal rank
fusion and the shipped hybrid (``search.query``), with and without its cut-off, plus how
many of 200 generated nonsense queries still get results. The index, scores and fusion are
the web app's own code (``search.index.make_index``, ``search.in_process.keyword_scores`` and
``matches``).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date
from itertools import product
from pathlib import Path

import numpy as np

from app.core.config import get_settings
from app.core.vectors import Matrix
from benchmarks.corpus_data import CORPUS, MATRIX, read_vectors, vectors_of
from ranking.embedder import make_embedder
from search.in_process import keyword_scores, matches
from search.index import Document, Index, make_index
from search.query import FUSION, Filters, Fusion, Words, best_rows

HF = CORPUS.parent.parent / "hf_daily" / "hf_daily_papers_2024-05-27_2025-12-31.jsonl.gz"
DEPTH = 10
NO_CUT_OFF = float("-inf")
# Everyday words, none of them a research subject; nonsense queries mix them and random letters.
EVERYDAY = (
    "banana",
    "umbrella",
    "kitchen",
    "sofa",
    "grandmother",
    "bicycle",
    "sandwich",
    "pillow",
    "garden",
    "carpet",
    "teapot",
    "shoelace",
    "birthday",
    "cupboard",
    "breakfast",
    "sunday",
    "puppy",
    "raincoat",
    "lemonade",
    "doorbell",
    "slippers",
    "picnic",
    "toaster",
    "ketchup",
    "mailbox",
    "hairbrush",
    "laundry",
    "pancake",
    "bathtub",
    "cousin",
)


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    target: int  # row of the paper it should find
    tune: bool  # in the half the fusion is chosen on


@dataclass(frozen=True, slots=True)
class Scored:
    query: Query
    words: Words
    meaning: Matrix


Ranker = Callable[[Scored], list[int]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--hf", type=Path, default=HF)
    parser.add_argument("--keywords", type=int, default=3, help="keywords a query keeps")
    args = parser.parse_args()
    started = time.perf_counter()
    documents = read_documents(args.corpus)
    index = make_index(
        documents,
        vectors_of(args.matrix, read_vectors(args.matrix), [d.arxiv_id for d in documents]),
        np.ones(len(documents), dtype=bool),
    )
    queries = read_queries(args.hf, index, args.keywords)
    embedder = make_embedder(get_settings())
    scored = score(index, queries, embedder.encode([q.text for q in queries]))
    nonsense = score(index, nonsense_queries(200), embedder.encode(nonsense_texts(200)))
    print(f"{len(documents)} papers, {len(queries)} queries, {time.perf_counter() - started:.0f} s")
    report(index, scored, nonsense)


def read_documents(path: Path) -> list[Document]:
    with gzip.open(path, "rt") as lines:
        raw = [json.loads(line) for line in lines]
    return [
        Document(
            arxiv_id=str(r["id"]),
            title=str(r["title"]),
            abstract=str(r["summary"]),
            authors=" ".join(r["authors"]),
            announced_on=date.fromisoformat(r["listing_dates"][0]),
            categories=tuple(r["categories"]),
        )
        for r in raw
    ]


def read_queries(path: Path, index: Index, keywords: int) -> list[Query]:
    """One query per paper of the corpus that Hugging Face gave keywords (first record wins)."""
    found: dict[str, Query] = {}
    with gzip.open(path, "rt") as lines:
        for line in lines:
            record = json.loads(line)
            row = index.position.get(record["arxiv_id"])
            if row is None or not record.get("ai_keywords") or record["arxiv_id"] in found:
                continue
            text = ", ".join(record["ai_keywords"][:keywords])[:200]
            found[record["arxiv_id"]] = Query(text, row, _tune_half(record["arxiv_id"]))
    return list(found.values())


def _tune_half(arxiv_id: str) -> bool:
    return hashlib.sha256(arxiv_id.encode()).digest()[0] % 2 == 0


def nonsense_texts(count: int) -> list[str]:
    """Random letter strings and random pairs or triples of everyday words (seeded)."""
    chance = random.Random(20261123)
    letters = "abcdefghijklmnopqrstuvwxyz"
    texts = []
    for i in range(count):
        if i % 2:
            texts.append(" ".join(chance.sample(EVERYDAY, 2 + i % 3 // 2)))
        else:
            words = ("".join(chance.choices(letters, k=chance.randint(4, 9))) for _ in range(2))
            texts.append(" ".join(words))
    return texts


def nonsense_queries(count: int) -> list[Query]:
    return [Query(text, -1, False) for text in nonsense_texts(count)]


def score(index: Index, queries: list[Query], vectors: Matrix) -> list[Scored]:
    return [
        Scored(query, keyword_scores(index, query.text), index.vectors @ vector)
        for query, vector in zip(queries, vectors, strict=True)
    ]


def keyword_only(scored: Scored) -> list[int]:
    return best_rows(scored.words.keyword, scored.words.keyword > 0, DEPTH)


def meaning_only(scored: Scored) -> list[int]:
    return best_rows(scored.meaning, np.ones(len(scored.meaning), dtype=bool), DEPTH)


def reciprocal_rank_fusion(scored: Scored) -> list[int]:
    """The fusion search used before: 1/(60 + rank) over each list's top 200."""
    fused: dict[int, float] = {}
    for ranking in (
        best_rows(scored.words.keyword, scored.words.keyword > 0, 200),
        best_rows(scored.meaning, scored.meaning > 0, 200),
    ):
        for rank, row in enumerate(ranking, start=1):
            fused[row] = fused.get(row, 0.0) + 1.0 / (60 + rank)
    return sorted(fused, key=lambda row: -fused[row])[:DEPTH]


def hybrid(index: Index, fusion: Fusion) -> Ranker:
    def ranked(scored: Scored) -> list[int]:
        found = matches(index, scored.words, scored.meaning, Filters(), fusion)
        return [match.row for match in found[:DEPTH]]

    return ranked


def quality(ranker: Ranker, scored: Iterable[Scored]) -> tuple[float, float, int]:
    """MRR@10, recall@10 and the number of queries."""
    ranks = []
    for one in scored:
        rows = ranker(one)
        ranks.append(rows.index(one.query.target) + 1 if one.query.target in rows else 0)
    mrr = sum(1 / rank for rank in ranks if rank) / len(ranks)
    return mrr, sum(1 for rank in ranks if rank) / len(ranks), len(ranks)


def tune(index: Index, scored: list[Scored]) -> Fusion:
    """The weights with the best MRR@10 on the tune half, without a cut-off."""
    grid = product((1.0, 1.5, 2.0, 3.0), (0.45, 0.5, 0.55, 0.6))
    tried = {
        (weight, strong): quality(hybrid(index, uncut(weight, strong)), scored)[0]
        for weight, strong in grid
    }
    (weight, strong), best = max(tried.items(), key=lambda item: item[1])
    print(
        f"tuned on {len(scored)} queries: keyword_weight {weight}, strong_meaning {strong}, "
        f"MRR@10 {best:.3f} (no cut-off)"
    )
    return uncut(weight, strong)


def uncut(weight: float, strong: float) -> Fusion:
    """Every keyword match admitted, and meaning-only ones from ``strong``."""
    return Fusion(weight, strong, related_meaning=NO_CUT_OFF, floor=NO_CUT_OFF)


def cut_off(index: Index, tuned: Fusion, scored: list[Scored], nonsense: list[Scored]) -> Fusion:
    """The cut-off that answers fewest nonsense queries losing at most 1 % MRR@10 (tune half)."""
    reference = quality(hybrid(index, tuned), scored)[0]
    kept = []
    for related, floor in product((0.35, 0.4, 0.45, 0.5), (0.6, 0.7, 0.8)):
        fusion = replace(tuned, related_meaning=related, floor=floor)
        mrr, _, _ = quality(hybrid(index, fusion), scored)
        wrong = answered(index, fusion, nonsense)
        print(
            f"  related_meaning {related}, floor {floor}: tune MRR@10 {mrr:.3f}, "
            f"nonsense answered {wrong} of {len(nonsense)}"
        )
        if mrr >= 0.99 * reference:
            kept.append((wrong, -mrr, fusion))
    chosen = min(kept, key=lambda item: item[:2])[2]
    print(f"chosen: {chosen}")
    return chosen


def answered(index: Index, fusion: Fusion, scored: list[Scored]) -> int:
    """How many of these queries get at least one result."""
    return sum(1 for one in scored if hybrid(index, fusion)(one))


def report(index: Index, scored: list[Scored], nonsense: list[Scored]) -> None:
    tuning = [s for s in scored if s.query.tune]
    tuned = tune(index, tuning)
    cut_off(index, tuned, tuning, nonsense)
    held = [s for s in scored if not s.query.tune]
    print(f"\nreport half, {len(held)} queries\n\n| method | MRR@10 | recall@10 |\n|---|---:|---:|")
    methods: dict[str, Ranker] = {
        "keywords only (tf-idf)": keyword_only,
        "meaning only (MiniLM cosine)": meaning_only,
        "hybrid before: reciprocal rank fusion": reciprocal_rank_fusion,
        "hybrid, tuned weights, no cut-off": hybrid(index, tuned),
        f"hybrid as shipped ({FUSION})": hybrid(index, FUSION),
    }
    for name, ranker in methods.items():
        mrr, recall, _ = quality(ranker, held)
        print(f"| {name} | {mrr:.3f} | {recall:.3f} |")
    print(
        f"\nnonsense queries answered as shipped: {answered(index, FUSION, nonsense)} of "
        f"{len(nonsense)}"
    )


if __name__ == "__main__":
    main()
