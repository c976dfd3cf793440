"""eval-trending: replay announcement days and judge Paperboy's score against the baselines.

For each day from ``start`` to ``end``: the pool is the papers first listed that day, the
relevant papers are those in the labels (graded by upvotes), and every method ranks the same
pool. Days with a pool under ``MIN_POOL`` papers or no relevant paper are skipped and listed.

The baselines (the rankings Paperboy's score is compared with, on the same pools in the same
run) each map one replayed day to one score per pool paper. ``tfidf_lr`` is the arxiv-sanity
approach: tf-idf of title and abstract (1- and 2-grams) and a logistic regression trained on the
same labels and window as the model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline

from ranking.scoring import Candidate
from ranking.trending.data import LabelRecord
from ranking.trending.features import has_code_link
from ranking.trending.history import AuthorHistory, merge_labels
from ranking.trending.metrics import MIN_POOL, calibration_summary, day_metrics, summarise
from ranking.trending.model import TrendingModel
from ranking.trending.replay import Day, Replay
from ranking.trending.scorer import TrendingScorer

METHODS = ("paperboy", "random", "n_authors", "has_code", "author_prior", "tfidf_lr")
METRICS = ("recall@10", "recall@25", "ndcg@10", "auc")


def paperboy(
    model: TrendingModel, replay: Replay, chances: dict[date, list[float]] | None = None
) -> Baseline:
    """The served scorer, fed exactly what a live day would give it; its calibrated chances
    are kept in ``chances`` by day."""
    scorer = TrendingScorer(model)

    def score(day: Day) -> list[float]:
        rows = scorer.score(day.papers, replay.context(day))
        if chances is not None:
            chances[day.day] = [float("nan") if row.chance is None else row.chance for row in rows]
        return [row.total for row in rows]

    return score


def methods(
    model: TrendingModel,
    replay: Replay,
    labels: Sequence[LabelRecord],
    chances: dict[date, list[float]],
) -> dict[str, Baseline]:
    until = date.fromisoformat(model.trained_until)
    featured = frozenset(record.arxiv_id for record in labels if record.featured_on < until)
    return {
        "paperboy": paperboy(model, replay, chances),
        "random": random_baseline,
        "n_authors": n_authors,
        "has_code": has_code,
        "author_prior": author_prior(replay.history),
        "tfidf_lr": tfidf_lr(replay.papers, featured, until),
    }


def evaluate(
    replay: Replay, labels: Sequence[LabelRecord], model: TrendingModel, start: date, end: date
) -> dict[str, Any]:
    """The results document (see the README of ``eval-trending`` for its shape)."""
    chances: dict[date, list[float]] = {}
    outcomes: list[tuple[NDArray[np.float64], NDArray[np.float64]]] = []
    rankers = methods(model, replay, labels, chances)
    upvotes = {arxiv_id: record.upvotes for arxiv_id, record in merge_labels(labels).items()}
    days: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    for day in replay.days(start, end):
        inputs = replay.day(day)
        grades = [upvotes.get(paper.arxiv_id) for paper in inputs.papers]
        row: dict[str, Any] = {"date": day.isoformat(), "pool": len(grades)}
        row["relevant"] = sum(grade is not None for grade in grades)
        if row["pool"] < MIN_POOL or row["relevant"] == 0:
            skipped.append(
                row | {"reason": "pool under 20" if row["pool"] < MIN_POOL else "none relevant"}
            )
            continue
        row["methods"] = {name: day_metrics(rank(inputs), grades) for name, rank in rankers.items()}
        days.append(row)
        outcomes.append(
            (np.asarray(chances[day]), np.array([g is not None for g in grades], float))
        )
    summary = {name: summarise([day["methods"][name] for day in days]) for name in rankers}
    calibrated = bool(outcomes) and not any(np.isnan(c).any() for c, _ in outcomes)
    calibration = calibration_summary(outcomes) if calibrated else {}
    reliability = calibration.pop("reliability", [])
    summary["paperboy"] |= calibration
    return {
        "window": {"from": start.isoformat(), "to": end.isoformat()},
        "model": model.metadata(),
        "skipped_days": skipped,
        "days": days,
        "summary": summary,
        "reliability": reliability,
    }


def markdown_table(results: dict[str, Any]) -> str:
    """Summary as a markdown table: one row per method, mean [95% interval] per metric."""
    lines = [
        f"| method | {' | '.join(METRICS)} |",
        f"|---|{'---|' * len(METRICS)}",
    ]
    for name, summary in results["summary"].items():
        cells = [_cell(summary[metric]) for metric in METRICS] if summary else ["-"] * 4
        lines.append(f"| {name} | {' | '.join(cells)} |")
    paperboy = results["summary"].get("paperboy", {})
    if "ece" in paperboy:
        lines += [
            "",
            f"paperboy calibration: ECE {_cell(paperboy['ece'])}, "
            f"Brier skill {_cell(paperboy['brier_skill'])}",
            "",
            "| chance bin | mean chance | featured share | papers |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {r['low']:.3f} to {r['high']:.3f} | {r['mean_chance']:.3f} | "
            f"{r['featured_share']:.3f} | {r['papers']:.0f} |"
            for r in results.get("reliability", [])
        ]
    return "\n".join(lines)


def _cell(value: dict[str, Any]) -> str:
    low, high = value["ci95"]
    return f"{value['mean']:.3f} [{low:.3f}, {high:.3f}]"


Baseline = Callable[[Day], list[float]]


def random_baseline(day: Day) -> list[float]:
    """Uniform scores, seeded by the day so a run is reproducible."""
    return list(np.random.default_rng(day.day.toordinal()).random(len(day.papers)))


def n_authors(day: Day) -> list[float]:
    return [float(len(paper.authors)) for paper in day.papers]


def has_code(day: Day) -> list[float]:
    return [float(has_code_link(paper)) for paper in day.papers]


def author_prior(history: AuthorHistory) -> Baseline:
    def score(day: Day) -> list[float]:
        return [history.stats(paper, day.day).prior() for paper in day.papers]

    return score


def _text(paper: Candidate) -> str:
    return f"{paper.title}. {paper.abstract}"


def tfidf_lr(papers: Sequence[Candidate], featured: frozenset[str], until: date) -> Baseline:
    """Fit on the papers announced before ``until``; ``featured`` holds labels before it."""
    window = [paper for paper in papers if paper.announced_on < until]
    pipeline: Pipeline = make_pipeline(
        TfidfVectorizer(ngram_range=(1, 2), min_df=3, max_features=200_000, sublinear_tf=True),
        LogisticRegression(C=4.0, max_iter=2000),
    )
    pipeline.fit(
        [_text(paper) for paper in window], [paper.arxiv_id in featured for paper in window]
    )

    def score(day: Day) -> list[float]:
        return [
            float(value) for value in pipeline.decision_function([_text(p) for p in day.papers])
        ]

    return score
