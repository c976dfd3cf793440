"""``paperboy eval-authors``: how well author names are split into the people behind them.

Reads the corpus (daily-listing JSON lines) and, optionally, precomputed embeddings; never
touches the database. See app/services/author_eval.py for the synthetic merges and methods.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from app.cli.common import print_error
from app.cli.personal import add_corpus_arguments, add_window_arguments
from app.cli.trending import write_results
from app.core.config import Settings
from app.services.author_eval import (
    MERGE_THRESHOLD,
    SplitParams,
    authored,
    draw,
    evaluate,
    markdown_table,
    methods,
)
from app.services.corpus_files import EXPECTED_ERRORS, corpus_embeddings, load_corpus


def add_eval_authors_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    add_window_arguments(parser)
    for kind, count in (("pairs", 800), ("triples", 200), ("hard", 300)):
        parser.add_argument(
            f"--{kind}", type=int, default=count, help=f"merged names: {kind} (default {count})"
        )
    parser.add_argument("--seed", type=int, default=0, help="seed of the draw")
    parser.add_argument(
        "--threshold",
        type=float,
        default=MERGE_THRESHOLD,
        help=f"merge threshold of paperboy's split (default {MERGE_THRESHOLD})",
    )
    parser.add_argument("--out", type=Path, required=True, help="results JSON file")


def run_eval_authors(args: argparse.Namespace, settings: Settings) -> int:
    if args.end < args.start:
        return print_error("eval-authors", "--to is before --from")
    started = time.perf_counter()
    try:
        papers = [p for p in load_corpus(args.corpus) if args.start <= p.announced_on <= args.end]
        corpus = authored(papers, corpus_embeddings(args.embeddings, papers, settings))
    except EXPECTED_ERRORS as error:
        return print_error("eval-authors", error)
    counts = {"pair": args.pairs, "triple": args.triples, "hard": args.hard}
    merged = draw(corpus, counts, args.seed)
    if not merged:
        return print_error("eval-authors", f"no two authors with 3 papers in {args.start}…")
    results = evaluate(corpus, merged, methods(SplitParams(merge_threshold=args.threshold)))
    results = {
        "window": {"from": args.start.isoformat(), "to": args.end.isoformat()},
        "settings": {"seed": args.seed, "threshold": args.threshold, "asked": counts},
    } | results
    write_results(args.out, results, markdown_table(results))
    print(
        f"{results['names']} merged names, {results['single_authors']} authors alone, "
        f"{time.perf_counter() - started:.0f} s -> {args.out}"
    )
    return 0
