"""How a week edition should combine its days, measured on the real files.

    .venv/bin/python benchmarks/week_editions.py [--data ../shared/data] \
        [--from 2025-10-01] [--to 2025-12-28] [--shipped]

For each ISO week of the window, its papers (those announced on its days) are scored day by
day as a live day is (``TrendingScorer`` with the replay's author history and topic memory, a
model trained on the window before ``--from``, or with ``--shipped`` the shipped one, which
saw these weeks), then put in one order by each method below. Truth: the week's Hugging Face
Daily Papers records (``daily_date`` on one of its seven days), each paper graded by its
summed upvotes; NDCG@10 (gain log2(1 + upvotes)) over the papers of the pool, averaged over
weeks with a 95% bootstrap interval. Papers featured in the week but announced the week
before are in no pool and so in no ideal order.

Two settings: at announcement (no community signal), and as the edition stands on the week's
last announcement day, with the upvotes of the records dated before that day ("counts so
far"). The second partly reads the answer: the week's earlier records are half the truth. It
is there to show how each way of merging days uses what a live week edition knows.

Methods, each from the same day-level scores and counts: ``concatenate`` (Monday's order, then
Tuesday's, ...), ``interleave`` (each day's first, then each day's second, ...), ``per-day z``
(the sum's z-score among its day's papers), ``per-day percentile`` (its place in its day, as
a share) and ``day score + counts`` (shipped, :mod:`ranking.period_pool`: the plain sum).
Besides them, ``one pool as of the last day``: the way week editions were built before, the
whole week scored in one call as of its last announcement day, with the scorer's decayed
community component.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from app.core.config import get_settings
from ranking.period_pool import community_term, period_scores
from ranking.scoring import Candidate, Signal
from ranking.trending.data import LabelRecord, load_corpus, load_embeddings, load_labels
from ranking.trending.metrics import ndcg_at, summarise
from ranking.trending.model import TrendingModel, load_model
from ranking.trending.replay import Day, Replay
from ranking.trending.scorer import TrendingScorer
from ranking.trending.training import train, window_labels

CORPUS = "corpus/arxiv_listings_2025-03-18_2026-07-01.jsonl.gz"
LABELS = "hf_daily/hf_daily_papers_2024-05-27_2025-12-31.jsonl.gz"
EMBEDDINGS = "corpus/embeddings_all-MiniLM-L6-v2.f16.npy"
Floats = NDArray[np.float64]
# A method: (announcement day of each paper, day-level score, community term) -> week scores.
Method = Callable[[Sequence[date], Floats, Floats], Floats]


def _ranks_in_day(days: Sequence[date], scores: Floats) -> tuple[NDArray[np.intp], Floats]:
    """Each paper's place in its day's order (0 = best) and its day's size."""
    places = np.zeros(len(scores), dtype=np.intp)
    sizes = np.zeros(len(scores))
    keys = np.array([day.toordinal() for day in days])
    for key in np.unique(keys):
        rows = np.flatnonzero(keys == key)
        order = rows[np.argsort(-scores[rows], kind="stable")]
        places[order] = np.arange(len(order))
        sizes[rows] = len(rows)
    return places, sizes


def concatenate(days: Sequence[date], base: Floats, community: Floats) -> Floats:
    places, _ = _ranks_in_day(days, base + community)
    first = min(days)
    return -np.array([(d - first).days * 1e6 for d in days]) - places


def interleave(days: Sequence[date], base: Floats, community: Floats) -> Floats:
    places, _ = _ranks_in_day(days, base + community)
    first = min(days)
    return -(places * 10.0) - np.array([(d - first).days for d in days]) / 10.0


def shipped(days: Sequence[date], base: Floats, community: Floats) -> Floats:
    return period_scores(base, community)


def per_day_z(days: Sequence[date], base: Floats, community: Floats) -> Floats:
    raw = base + community
    result = np.zeros(len(raw))
    keys = np.array([day.toordinal() for day in days])
    for key in np.unique(keys):
        rows = keys == key
        spread = float(raw[rows].std())
        result[rows] = (raw[rows] - raw[rows].mean()) / spread if spread > 0 else 0.0
    return result


def per_day_percentile(days: Sequence[date], base: Floats, community: Floats) -> Floats:
    places, sizes = _ranks_in_day(days, base + community)
    return 1.0 - (places + 0.5) / sizes


METHODS: dict[str, Method] = {
    "concatenate": concatenate,
    "interleave": interleave,
    "per-day z": per_day_z,
    "per-day percentile": per_day_percentile,
    "day score + counts (shipped)": shipped,
}
BEFORE = "one pool as of the last day"


def weeks(start: date, end: date) -> list[date]:
    monday = start - timedelta(days=start.weekday())
    return [monday + timedelta(weeks=i) for i in range((end - monday).days // 7 + 1)]


def week_truth(labels: Sequence[LabelRecord], monday: date) -> dict[str, int]:
    summed: dict[str, int] = defaultdict(int)
    for record in labels:
        if monday <= record.featured_on <= monday + timedelta(days=6):
            summed[record.arxiv_id] += record.upvotes
    return dict(summed)


def counts_before(labels: Sequence[LabelRecord], ids: set[str], day: date) -> dict[str, float]:
    """The latest upvote count of each paper among records dated before ``day``."""
    latest: dict[str, tuple[date, int]] = {}
    for record in labels:
        if record.arxiv_id not in ids or record.featured_on >= day:
            continue
        if record.arxiv_id not in latest or latest[record.arxiv_id][0] <= record.featured_on:
            latest[record.arxiv_id] = (record.featured_on, record.upvotes)
    return {arxiv_id: float(upvotes) for arxiv_id, (_, upvotes) in latest.items()}


def evaluate_week(
    replay: Replay, scorer: TrendingScorer, labels: Sequence[LabelRecord], monday: date
) -> dict[str, dict[str, float]] | None:
    """NDCG@10 of each method in both settings, or None for a week with no featured paper."""
    days: list[date] = []
    ids: list[str] = []
    base: list[float] = []
    pools: list[Day] = []
    for day in replay.days(monday, monday + timedelta(days=6)):
        pool = replay.day(day)
        scores = scorer.score(pool.papers, replay.context(pool))
        days += [day] * len(pool.papers)
        ids += [paper.arxiv_id for paper in pool.papers]
        base += [score.total for score in scores]
        pools.append(pool)
    truth = week_truth(labels, monday)
    grades = [truth.get(arxiv_id) for arxiv_id in ids]
    if not any(grades):
        return None
    so_far = counts_before(labels, set(ids), max(days))
    upvoted = [community_term({"hf_upvotes": so_far.get(i, 0.0)}) for i in ids]
    settings = {"at announcement": np.zeros(len(ids)), "counts so far": np.array(upvoted)}
    scored = np.array(base)
    found = {
        f"{setting} / {name}": {"ndcg@10": ndcg_at(10, list(method(days, scored, c)), grades)}
        for setting, c in settings.items()
        for name, method in METHODS.items()
    }
    for setting, signals in (("at announcement", []), ("counts so far", _signals(labels, so_far))):
        before = _one_pool(replay, scorer, pools, signals)
        found[f"{setting} / {BEFORE}"] = {"ndcg@10": ndcg_at(10, before, grades)}
    return found


def _signals(labels: Sequence[LabelRecord], so_far: dict[str, float]) -> list[Signal]:
    """The upvotes known so far as the scorer reads them (dated by their record)."""
    dated = {r.arxiv_id: r.featured_on for r in labels if r.arxiv_id in so_far}
    return [
        Signal(arxiv_id=i, source="hf_upvotes", value=value, observed_on=dated[i])
        for i, value in so_far.items()
    ]


def _one_pool(
    replay: Replay, scorer: TrendingScorer, pools: list[Day], signals: list[Signal]
) -> list[float]:
    """The whole week scored in one call as of its last day: how week editions were built."""
    papers = [paper for pool in pools for paper in pool.papers]
    week = Day(pools[-1].day, papers, np.concatenate([pool.embeddings for pool in pools]))
    context = replace(replay.context(week), signals=signals)
    return [score.total for score in scorer.score(papers, context)]


def _model(
    args: argparse.Namespace,
    corpus: list[Candidate],
    vectors: dict[str, NDArray[np.float32]],
    labels: list[LabelRecord],
) -> TrendingModel:
    if args.shipped:
        return load_model(get_settings().trending_model_path)
    window = [paper for paper in corpus if paper.announced_on < args.start]
    return train(Replay(window, vectors, window_labels(labels, args.start)), args.start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--from", dest="start", type=date.fromisoformat, default=date(2025, 10, 1))
    parser.add_argument("--to", dest="end", type=date.fromisoformat, default=date(2025, 12, 28))
    parser.add_argument("--shipped", action="store_true", help="the shipped model (in sample)")
    args = parser.parse_args()
    started = time.perf_counter()
    corpus = load_corpus(args.data / CORPUS)
    labels = load_labels([args.data / LABELS])
    vectors = load_embeddings(args.data / EMBEDDINGS)
    model = _model(args, corpus, vectors, labels)
    print(f"model {model.model_id}; read and trained in {time.perf_counter() - started:.0f} s")
    replay = Replay([p for p in corpus if p.announced_on <= args.end], vectors, labels)
    scorer = TrendingScorer(model)
    first = args.start + timedelta(days=(7 - args.start.weekday()) % 7)
    results = [evaluate_week(replay, scorer, labels, monday) for monday in weeks(first, args.end)]
    kept = [result for result in results if result is not None]
    print(f"{len(kept)} weeks from {first} ({len(results) - len(kept)} without a featured paper)")
    print("| setting / method | NDCG@10 | 95% interval |\n|---|---:|---|")
    for name in kept[0]:
        figure = summarise([week[name] for week in kept])["ndcg@10"]
        interval = figure["ci95"]
        assert isinstance(interval, list)
        print(f"| {name} | {figure['mean']:.3f} | {interval[0]:.3f} to {interval[1]:.3f} |")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
