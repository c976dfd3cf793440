"""``paperboy eval-authors``: how well author names are split into the people behind them, on
synthetic merges of the corpus's authors (app/services/author_eval.py), and with one author of
each name verified (``--method verified``, app/services/verified_eval.py). Reads files only.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from app.cli.common import print_error
from app.cli.offline import add_corpus_arguments, add_window_arguments, write_results
from app.core.config import Settings
from app.services.author_eval import (
    MERGE_THRESHOLD,
    Authored,
    Merged,
    SplitParams,
    authored,
    draw,
    evaluate,
    markdown_table,
    methods,
)
from app.services.trending import EXPECTED_ERRORS, corpus_embeddings, load_corpus
from app.services.verified_eval import (
    VERIFIED_THRESHOLD,
    VerifiedParams,
    evaluate_verified,
    midpoint,
    verified_methods,
    verified_table,
)


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
    parser.add_argument(
        "--method",
        choices=("all", "verified"),
        default="all",
        help="all: every split on whole names; verified: the largest author of each name "
        "verified by its papers before the window's midpoint, scored on the other papers",
    )
    parser.add_argument(
        "--verified-threshold",
        type=float,
        default=VERIFIED_THRESHOLD,
        help=f"the verified person's bar for newer unlisted papers (default {VERIFIED_THRESHOLD})",
    )
    parser.add_argument(
        "--feed-share",
        type=_share,
        default=1.0,
        help="verified: the share of the author's earlier papers its feed lists (default 1: "
        "all; below 1, a feed that leaves some out)",
    )
    parser.add_argument("--out", type=Path, required=True, help="results JSON file")


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a share in (0, 1]")
    return value


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
    params = SplitParams(merge_threshold=args.threshold)
    settings_used = {"seed": args.seed, "threshold": args.threshold, "asked": counts}
    window = {"from": args.start.isoformat(), "to": args.end.isoformat()}
    if args.method == "verified":
        return _eval_verified(args, corpus, merged, params, window, settings_used)
    results = evaluate(corpus, merged, methods(params))
    results = {"window": window, "settings": settings_used} | results
    write_results(args.out, results, markdown_table(results))
    print(
        f"{results['names']} merged names, {results['single_authors']} authors alone, "
        f"{time.perf_counter() - started:.0f} s -> {args.out}"
    )
    return 0


def _eval_verified(
    args: argparse.Namespace,
    corpus: Authored,
    merged: list[Merged],
    params: SplitParams,
    window: dict[str, str],
    settings_used: dict[str, object],
) -> int:
    """``--method verified``: the split knowing one author's claim, scored on the papers the
    claim does not list."""
    chosen = VerifiedParams(split=params, threshold=args.verified_threshold)
    middle = midpoint(args.start, args.end)
    results = evaluate_verified(corpus, merged, middle, verified_methods(chosen), args.feed_share)
    settings_used = settings_used | {
        "verified_threshold": args.verified_threshold,
        "feed_share": args.feed_share,
    }
    results = {"window": window, "settings": settings_used} | results
    write_results(args.out, results, verified_table(results))
    print(
        f"{results['names']} merged names scored, {results['skipped']} skipped (the feed of "
        f"their verified author lists no paper before {middle}, or it has none from then on) "
        f"-> {args.out}"
    )
    return 0
