"""Search quality for queries as readers type them: a few keywords, or a title slightly off.

    .venv/bin/python -m benchmarks.search_typed [--corpus ...] [--matrix ...] [--hf ...] \
        [--seed 20261205]

Known-item queries over the whole corpus, none of them tuned on by ``search_eval``: for each
half of its hash split, 400 papers with at least five Hugging Face ``ai_keywords``, each asked
by two or three of its keywords other than the first three (those are ``search_eval``'s),
joined by spaces; and 200 titles of the corpus with one word dropped, one swapped with its
neighbour, or one replaced by a word from another title of the same category. The weight of
the share of words held and the closest matches' parameters (:class:`search.query.Fusion`) are
chosen on the *tune* half and reported on the *report* half, beside today's search (neither)
on the same queries.

Prints, for today's search and the new one: the share of queries with no result, recall@10
of the hybrid, of keywords alone (the search without a model) and of meaning alone (the ten
nearest), and how many of ``search_eval``'s 200 nonsense queries still get results.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import time
from dataclasses import dataclass, replace
from itertools import product
from pathlib import Path

import numpy as np

from app.core.config import get_settings
from benchmarks.corpus_data import CORPUS, MATRIX, read_vectors, vectors_of
from benchmarks.search_eval import (
    DEPTH,
    HF,
    Query,
    Scored,
    _tune_half,
    meaning_only,
    nonsense_queries,
    nonsense_texts,
    read_documents,
    score,
)
from ranking.embedder import make_embedder
from search.in_process import matches
from search.index import Document, Index, make_index
from search.query import FUSION, Filters, Fusion

SEED = 20261205
KEYWORD_PAPERS = 400
TITLES = 200
# Today's search: no paper is ever among the closest matches.
TODAY = replace(FUSION, coverage_weight=0.0, closest_share=float("inf"))


@dataclass(frozen=True, slots=True)
class Outcome:
    """A method's share of queries with no result and its recall@10."""

    empty: float
    recall: float


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--hf", type=Path, default=HF)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    started = time.perf_counter()
    documents = read_documents(args.corpus)
    index = make_index(
        documents,
        vectors_of(args.matrix, read_vectors(args.matrix), [d.arxiv_id for d in documents]),
        np.ones(len(documents), dtype=bool),
    )
    encode = make_embedder(get_settings()).encode
    halves = {}
    for tune in (True, False):
        queries = typed_queries(args.hf, documents, index, tune, args.seed)
        halves[tune] = score(index, queries, encode([q.text for q in queries]))
    nonsense = score(index, nonsense_queries(200), encode(nonsense_texts(200)))
    print(f"{len(documents)} papers, {time.perf_counter() - started:.0f} s to score the queries")
    chosen = choose(index, halves[True], nonsense)
    report(index, halves[False], nonsense, chosen)


def typed_queries(
    hf: Path, documents: list[Document], index: Index, tune: bool, seed: int
) -> list[Query]:
    """The half's keyword queries, then its title queries (seeded)."""
    chance = random.Random(f"{seed}-{tune}")
    return keyword_queries(hf, index, tune, chance) + title_queries(documents, tune, chance)


def keyword_queries(hf: Path, index: Index, tune: bool, chance: random.Random) -> list[Query]:
    keywords: dict[str, list[str]] = {}
    with gzip.open(hf, "rt") as lines:
        for line in lines:
            record = json.loads(line)
            arxiv_id, words = record["arxiv_id"], record.get("ai_keywords") or []
            if arxiv_id in index.position and _tune_half(arxiv_id) == tune and len(words) >= 5:
                keywords.setdefault(arxiv_id, [str(w) for w in words])
    queries = []
    for arxiv_id in chance.sample(sorted(keywords), KEYWORD_PAPERS):
        later = keywords[arxiv_id][3:]
        asked = chance.sample(later, min(len(later), chance.choice((2, 3))))
        queries.append(Query(" ".join(asked), index.position[arxiv_id], tune))
    return queries


def title_queries(documents: list[Document], tune: bool, chance: random.Random) -> list[Query]:
    rows = [
        row
        for row, d in enumerate(documents)
        if _tune_half(d.arxiv_id) == tune and len(d.title.split()) >= 3 and d.categories
    ]
    by_category: dict[str, list[int]] = {}
    for row in rows:
        by_category.setdefault(documents[row].categories[0], []).append(row)
    queries = []
    for number, row in enumerate(chance.sample(rows, TITLES)):
        words = documents[row].title.split()
        place = chance.randrange(len(words) - 1)
        if number % 3 == 0:
            del words[place]
        elif number % 3 == 1:
            words[place], words[place + 1] = words[place + 1], words[place]
        else:
            other = documents[chance.choice(by_category[documents[row].categories[0]])]
            words[place] = chance.choice(other.title.split())
        queries.append(Query(" ".join(words), row, tune))
    return queries


def hybrid_rows(index: Index, fusion: Fusion, scored: Scored) -> list[int]:
    found = matches(index, scored.words, scored.meaning, Filters(), fusion)
    return [match.row for match in found[:DEPTH]]


def keyword_rows(index: Index, scored: Scored) -> list[int]:
    """The search without a model: any query word matches, ranked by its keyword score."""
    return [match.row for match in matches(index, scored.words, None, Filters())[:DEPTH]]


def outcome(ranked: list[list[int]], scored: list[Scored]) -> Outcome:
    empty = sum(1 for rows in ranked if not rows) / len(scored)
    found = sum(1 for rows, one in zip(ranked, scored, strict=True) if one.query.target in rows)
    return Outcome(empty, found / len(scored))


def hybrid(index: Index, fusion: Fusion, scored: list[Scored]) -> Outcome:
    return outcome([hybrid_rows(index, fusion, one) for one in scored], scored)


def answered(index: Index, fusion: Fusion, nonsense: list[Scored]) -> int:
    return sum(1 for one in nonsense if hybrid_rows(index, fusion, one))


def choose(index: Index, scored: list[Scored], nonsense: list[Scored]) -> Fusion:
    """The closest matches' parameters with the best tune-half recall@10 among those that
    answer at most one nonsense query."""
    today = hybrid(index, TODAY, scored)
    print(
        f"tune half, {len(scored)} queries: today no result {today.empty:.1%}, "
        f"recall@10 {today.recall:.3f}"
    )
    tried = []
    grid = product((0.0, 2.0, 3.0, 4.0, 6.0), (0.6,), (0.25, 0.3, 0.4))
    for weight, share, close in grid:
        fusion = replace(FUSION, coverage_weight=weight, closest_share=share, closest_meaning=close)
        found, wrong = hybrid(index, fusion, scored), answered(index, fusion, nonsense)
        print(
            f"  coverage_weight {weight}, closest_share {share}, closest_meaning {close}: "
            f"no result {found.empty:.1%}, recall@10 {found.recall:.3f}, nonsense {wrong}"
        )
        if wrong <= 1:
            tried.append((found.recall, -found.empty, fusion))
    # The first best in the grid's order: the smallest weights that reach it.
    best = max(item[:2] for item in tried)
    chosen = next(item[2] for item in tried if item[:2] == best)
    print(f"chosen: {chosen}")
    return chosen


def report(index: Index, scored: list[Scored], nonsense: list[Scored], chosen: Fusion) -> None:
    kinds = {
        "all": scored,
        "keywords": scored[:KEYWORD_PAPERS],
        "titles": scored[KEYWORD_PAPERS:],
    }
    print(f"\nreport half, {len(scored)} queries ({KEYWORD_PAPERS} keyword, {TITLES} title)\n")
    print("| search | queries | no result | recall@10 hybrid | keywords alone | meaning alone |")
    print("|---|---|---:|---:|---:|---:|")
    for name, fusion in (("today", TODAY), ("shipped", FUSION), ("chosen", chosen)):
        for kind, some in kinds.items():
            found = hybrid(index, fusion, some)
            words = outcome([keyword_rows(index, one) for one in some], some)
            meaning = outcome([meaning_only(one) for one in some], some)
            print(
                f"| {name} | {kind} | {found.empty:.1%} | {found.recall:.3f} | "
                f"{words.recall:.3f} | {meaning.recall:.3f} |"
            )
    for name, fusion in (("today", TODAY), ("shipped", FUSION), ("chosen", chosen)):
        print(f"nonsense answered, {name}: {answered(index, fusion, nonsense)} of {len(nonsense)}")


if __name__ == "__main__":
    main()
