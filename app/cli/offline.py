"""The offline commands, which read files and never touch the database:

- ``paperboy train-ranker`` and ``paperboy eval-trending``: the trending model on the corpus
  (daily-listing JSON lines), Hugging Face Daily Papers label files and, optionally,
  precomputed embeddings;
- ``paperboy eval-personal``: how well each method finds an author's own new papers, and
  ``paperboy train-taste-space``: the learned map of embeddings that the profile match uses
  (see app/services/personal_eval.py for the methods);
- ``paperboy eval-authors``: in app/cli/people_eval.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from datetime import date, timedelta
from pathlib import Path

from app.cli.common import parse_day, print_error, warn_if_trained_on_window
from app.core.config import Settings
from app.services.personal_inputs import (
    Corpus,
    DayViews,
    TasteSpace,
    TasteSpaceError,
    corpus_of,
    day_views,
    described,
    pairs,
    sample,
    save_space,
    taste_space,
)
from app.services.taste_training import (
    EPOCHS,
    NothingToLearnError,
    TrainingSettings,
    train_space,
)
from app.services.trending import (
    EXPECTED_ERRORS,
    corpus_embeddings,
    evaluate_trending,
    load_corpus,
    load_model,
    save_model,
    train_ranker,
    trending_replay,
)


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a YYYY-MM-DD date: {text!r}") from None


def _add_inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", type=Path, required=True, help="daily-listing JSON lines")
    parser.add_argument(
        "--labels",
        type=Path,
        action="append",
        required=True,
        help="Hugging Face Daily Papers JSON lines (repeatable)",
    )
    parser.add_argument(
        "--embeddings",
        type=Path,
        help="precomputed embeddings X.npy with X.ids.json beside it "
        "(default: embed the corpus with PAPERBOY_EMBEDDING_MODEL, slow on a CPU)",
    )


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    _add_inputs(parser)
    parser.add_argument("--until", type=_day, required=True, help="train on data before this day")
    parser.add_argument(
        "--out", type=Path, help="artifact path (default DATA_DIR/models/trending-UNTIL.json)"
    )


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    _add_inputs(parser)
    parser.add_argument("--from", dest="start", type=_day, required=True, help="first day")
    parser.add_argument("--to", dest="end", type=_day, required=True, help="last day (inclusive)")
    parser.add_argument("--model", type=Path, help="model artifact (default: the shipped one)")
    parser.add_argument("--out", type=Path, required=True, help="results JSON file")


def run_train_ranker(args: argparse.Namespace, settings: Settings) -> int:
    out = args.out or settings.data_dir / "models" / f"trending-{args.until.isoformat()}.json"
    try:
        model = train_ranker(settings, args.corpus, args.labels, args.embeddings, args.until)
    except EXPECTED_ERRORS as error:
        return _fail("train-ranker", error)
    save_model(model, out)
    print(f"trained {model.model_id} on {model.metrics['papers']:.0f} papers -> {out}")
    return 0


def run_eval_trending(args: argparse.Namespace, settings: Settings) -> int:
    if args.end < args.start:
        return _fail("eval-trending", ValueError("--to is before --from"))
    started = time.perf_counter()
    try:
        replayed = trending_replay(
            settings, args.model, args.corpus, args.labels, args.embeddings, args.end
        )
    except EXPECTED_ERRORS as error:
        return _fail("eval-trending", error)
    warn_if_trained_on_window("eval-trending", "the model", replayed.saw_before, args.start)
    results, table = evaluate_trending(replayed, args.start, args.end)
    write_results(args.out, results, table)
    print(
        f"{len(results['days'])} days ranked, {len(results['skipped_days'])} skipped, "
        f"{time.perf_counter() - started:.0f} s -> {args.out}"
    )
    return 0


def write_results(out: Path, results: Mapping[str, object], table: str) -> None:
    """An evaluation's results JSON to ``out``, its summary table to standard output."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(table)


def _fail(command: str, error: Exception) -> int:
    print(f"paperboy {command}: {error}", file=sys.stderr)
    return 1


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """The corpus file and its precomputed embeddings, as every corpus evaluation takes them."""
    parser.add_argument("--corpus", type=Path, required=True, help="daily-listing JSON lines")
    parser.add_argument(
        "--embeddings",
        type=Path,
        help="precomputed embeddings X.npy with X.ids.json beside it "
        "(default: embed the corpus with PAPERBOY_EMBEDDING_MODEL, slow on a CPU)",
    )


def add_window_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="start", type=parse_day, required=True, help="first day")
    parser.add_argument(
        "--to", dest="end", type=parse_day, required=True, help="last day (inclusive)"
    )


def add_eval_personal_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    add_window_arguments(parser)
    parser.add_argument(
        "--pairs",
        type=int,
        default=3000,
        help="rank this many (author, day) pairs drawn at random (0: all of them)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the draw and the bootstrap")
    parser.add_argument(
        "--asl-c",
        type=float,
        nargs="+",
        default=None,
        help="C of the asl_svm baseline (default 0.01); more values add asl_svm_cC methods",
    )
    parser.add_argument(
        "--taste-space",
        type=Path,
        default=None,
        help="taste-space file for paperboy's match (default: the one shipped for the model)",
    )
    parser.add_argument(
        "--labels",
        type=Path,
        action="append",
        help="Hugging Face Daily Papers JSON lines (repeatable): adds the method digest, "
        "which ranks each day as a digest run would, after the trending model's edition",
    )
    parser.add_argument(
        "--trending-model",
        type=Path,
        default=None,
        help="trending model of the digest method (default: the one shipped)",
    )
    parser.add_argument("--out", type=Path, required=True, help="results JSON file")


def run_eval_personal(args: argparse.Namespace, settings: Settings) -> int:
    if args.end < args.start:
        return print_error("eval-personal", "--to is before --from")
    # scikit-learn loads in a second or so: only the commands that need it import it.
    from app.services.personal_eval import ASL_C, Methods, evaluate, markdown_table

    started = time.perf_counter()
    try:
        papers = [paper for paper in load_corpus(args.corpus) if paper.announced_on <= args.end]
        corpus = corpus_of(papers, corpus_embeddings(args.embeddings, papers, settings))
        space = taste_space(settings.embedding_model, args.taste_space)
        days = _day_views(args, settings, corpus, space)
    except (*EXPECTED_ERRORS, TasteSpaceError) as error:
        return print_error("eval-personal", error)
    if space is not None:  # trained_until: the last day it learned from
        saw_before = date.fromisoformat(space.trained_until) + timedelta(days=1)
        warn_if_trained_on_window("eval-personal", "the taste space", saw_before, args.start)
    found = pairs(corpus, args.start, args.end)
    chosen = sample(found, args.pairs or None, args.seed)
    methods = Methods(corpus, asl_c=tuple(args.asl_c or [ASL_C]), space=space, days=days)
    results = evaluate(methods.all(), chosen, len(found))
    results = {
        "window": {"from": args.start.isoformat(), "to": args.end.isoformat()},
        "settings": {
            "pairs": args.pairs,
            "seed": args.seed,
            "asl_c": methods.asl_c,
            "taste_space": None if space is None else described(space),
            "trending_model": None if days is None else days.scorer.version,
            "edition_size": settings.edition_size,
        },
    } | results
    write_results(args.out, results, markdown_table(results))
    print(
        f"{len(chosen)} of {len(found)} pairs ranked, "
        f"{time.perf_counter() - started:.0f} s -> {args.out}"
    )
    return 0


def _day_views(
    args: argparse.Namespace, settings: Settings, corpus: Corpus, space: TasteSpace | None
) -> DayViews | None:
    """The days as a digest run sees them, when labels let the trending model replay them."""
    if not args.labels:
        return None
    model = load_model(args.trending_model)
    saw_before = date.fromisoformat(model.trained_until)
    warn_if_trained_on_window("eval-personal", "the trending model", saw_before, args.start)
    return day_views(settings, corpus, space, model, args.labels)


def add_train_taste_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument(
        "--from", dest="start", type=parse_day, required=True, help="first day of the pairs"
    )
    parser.add_argument(
        "--until",
        type=parse_day,
        required=True,
        help="learn from days before this one only (the pairs end the day before)",
    )
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument(
        "--lexical-dimensions",
        type=int,
        default=TrainingSettings().lexical_dimensions,
        help="size of the learned projection of the words (0: the embedding alone)",
    )
    parser.add_argument("--out", type=Path, required=True, help="taste-space JSON file")


def run_train_taste(args: argparse.Namespace, settings: Settings) -> int:
    end = args.until - timedelta(days=1)
    if end < args.start:
        return print_error("train-taste-space", "--until is not after --from")
    if args.epochs < 1:
        return print_error("train-taste-space", "--epochs must be at least 1")
    if args.lexical_dimensions < 0:
        return print_error("train-taste-space", "--lexical-dimensions must not be negative")
    started = time.perf_counter()
    try:
        papers = [paper for paper in load_corpus(args.corpus) if paper.announced_on <= end]
        corpus = corpus_of(papers, corpus_embeddings(args.embeddings, papers, settings))
        space = train_space(
            corpus,
            args.start,
            end,
            settings.embedding_model,
            TrainingSettings(epochs=args.epochs, lexical_dimensions=args.lexical_dimensions),
        )
    except (*EXPECTED_ERRORS, NothingToLearnError) as error:
        return print_error("train-taste-space", error)
    try:
        save_space(space, args.out)
    except OSError as error:
        return print_error("train-taste-space", f"cannot write {args.out}: {error}")
    print(
        f"taste space of {space.model} learned on {space.settings['pairs']} pairs of "
        f"{space.settings['days']} days, {space.trained_from}..{space.trained_until}, "
        f"{time.perf_counter() - started:.0f} s -> {args.out}"
    )
    return 0
