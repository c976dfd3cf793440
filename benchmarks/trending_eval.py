"""Where the time of ``paperboy eval-trending`` goes, stage by stage, on the real files.

    .venv/bin/python benchmarks/trending_eval.py [--data ../shared/data] \
        [--from 2025-10-01] [--to 2025-12-31]

Prints seconds for: reading the corpus, labels and embeddings (the peer every other figure
is compared with, measured in the same run), building the replay (author history, topic
memory), computing every day's features and Paperboy's scores, each baseline over the same
days (the tf-idf one including its fit), and training a model on the window before ``--from``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from datetime import date
from functools import partial
from pathlib import Path
from typing import TypeVar

from ranking.trending.data import load_corpus, load_embeddings, load_labels
from ranking.trending.evaluation import Baseline, methods
from ranking.trending.replay import Day, Replay
from ranking.trending.training import train, window_labels

CORPUS = "corpus/arxiv_listings_2025-03-18_2026-07-01.jsonl.gz"
LABELS = "hf_daily/hf_daily_papers_2024-05-27_2025-12-31.jsonl.gz"
EMBEDDINGS = "corpus/embeddings_all-MiniLM-L6-v2.f16.npy"
T = TypeVar("T")


def timed(label: str, peer: float | None, step: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    result = step()
    seconds = time.perf_counter() - started
    ratio = f"{seconds / peer:6.2f} x reading" if peer else "  (peer)"
    print(f"{label:<44} {seconds:7.1f} s {ratio}", flush=True)
    return result, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--from", dest="start", type=date.fromisoformat, default=date(2025, 10, 1))
    parser.add_argument("--to", dest="end", type=date.fromisoformat, default=date(2025, 12, 31))
    args = parser.parse_args()
    (corpus, labels, vectors), peer = timed(
        "read corpus, labels, embeddings",
        None,
        lambda: (
            load_corpus(args.data / CORPUS),
            load_labels([args.data / LABELS]),
            load_embeddings(args.data / EMBEDDINGS),
        ),
    )
    window = [paper for paper in corpus if paper.announced_on < args.start]
    training = Replay(window, vectors, window_labels(labels, args.start))
    model, _ = timed("train (window before --from)", peer, lambda: train(training, args.start))
    replay, _ = timed(
        "build replay (history, topic memory)",
        peer,
        lambda: Replay([p for p in corpus if p.announced_on <= args.end], vectors, labels),
    )
    days = [replay.day(day) for day in replay.days(args.start, args.end)]
    rankers, _ = timed(
        "fit baselines (tf-idf + LR)", peer, lambda: methods(model, replay, labels, {})
    )
    for name, rank in rankers.items():
        timed(f"rank {len(days)} days: {name}", peer, partial(_rank_all, rank, days))


def _rank_all(rank: Baseline, days: list[Day]) -> list[list[float]]:
    return [rank(day) for day in days]


if __name__ == "__main__":
    main()
