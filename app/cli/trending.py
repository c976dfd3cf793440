"""``paperboy train-ranker`` and ``paperboy eval-trending``: the trending model on files.

Both read the corpus (daily-listing JSON lines), Hugging Face Daily Papers label files and,
optionally, precomputed embeddings; neither touches the database.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from app.cli.common import warn_if_trained_on_window
from app.core.config import Settings
from ranking.scoring import Candidate
from ranking.trending.data import TrendingDataError, load_corpus, load_embeddings, load_labels
from ranking.trending.model import ModelArtifactError, load_model, save_model
from ranking.trending.replay import Replay

EXPECTED_ERRORS = (TrendingDataError, ModelArtifactError, ValueError)


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
    # scikit-learn loads in a second or so: only the commands that need it import it.
    from ranking.trending.training import train, window_labels

    out = args.out or settings.data_dir / "models" / f"trending-{args.until.isoformat()}.json"
    try:
        labels = window_labels(load_labels(args.labels), args.until)
        corpus = [paper for paper in load_corpus(args.corpus) if paper.announced_on < args.until]
        replay = Replay(corpus, corpus_embeddings(args.embeddings, corpus, settings), labels)
        model = train(replay, args.until)
    except EXPECTED_ERRORS as error:
        return _fail("train-ranker", error)
    save_model(model, out)
    print(f"trained {model.model_id} on {model.metrics['papers']:.0f} papers -> {out}")
    return 0


def run_eval_trending(args: argparse.Namespace, settings: Settings) -> int:
    if args.end < args.start:
        return _fail("eval-trending", ValueError("--to is before --from"))
    from ranking.trending.evaluation import evaluate, markdown_table

    started = time.perf_counter()
    try:
        model = load_model(args.model)
        labels = load_labels(args.labels)
        corpus = [paper for paper in load_corpus(args.corpus) if paper.announced_on <= args.end]
        replay = Replay(corpus, corpus_embeddings(args.embeddings, corpus, settings), labels)
    except EXPECTED_ERRORS as error:
        return _fail("eval-trending", error)
    saw_before = date.fromisoformat(model.trained_until)
    warn_if_trained_on_window("eval-trending", "the model", saw_before, args.start)
    results = evaluate(replay, labels, model, args.start, args.end)
    write_results(args.out, results, markdown_table(results))
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


def corpus_embeddings(
    path: Path | None, corpus: Sequence[Candidate], settings: Settings
) -> Mapping[str, NDArray[np.float32]]:
    """The precomputed matrix at ``path``, or the corpus embedded with the configured model."""
    if path is not None:
        return load_embeddings(path)
    from ranking.embedder import make_embedder
    from ranking.embeddings import embedding_text

    vectors = make_embedder(settings).encode(
        [embedding_text(paper.title, paper.abstract) for paper in corpus]
    )
    return {paper.arxiv_id: vectors[row] for row, paper in enumerate(corpus)}


def _fail(command: str, error: Exception) -> int:
    print(f"paperboy {command}: {error}", file=sys.stderr)
    return 1
