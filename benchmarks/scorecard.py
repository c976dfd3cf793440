"""The public scorecard against ``paperboy eval-trending`` on the same days.

    .venv/bin/python -m benchmarks.scorecard [--from 2025-11-03] [--to 2025-11-28]

Imports the corpus into a scratch SQLite database with the vectors of the days and Hugging
Face's records, ranks each day live with the shipped model (``rank_day``, as ``paperboy
rank`` does, without topic labels by meaning), then builds ``/accuracy``'s figures from the
stored day pools. The peer, in the same run: ``eval-trending``'s replay of the same days from
the files, with the same model. Prints both Brier skills and calibration errors, and their
differences (the page's goal: within 0.005).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from app.core.config import Settings, get_settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.services.ingest import import_hf_signals
from app.web.accuracy import AccuracyPage, accuracy_page
from benchmarks.corpus_data import CORPUS, DATA, MATRIX, prepare_database
from ranking.pipeline import default_scorer, rank_day
from ranking.trending.data import load_corpus, load_embeddings, load_labels
from ranking.trending.evaluation import evaluate
from ranking.trending.features import INTEREST_DAYS
from ranking.trending.model import load_model
from ranking.trending.replay import Replay

LABELS = DATA.parent / "hf_daily" / "hf_daily_papers_2024-05-27_2025-12-31.jsonl.gz"
TOLERANCE = 0.005


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="start", type=date.fromisoformat, default=date(2025, 11, 3))
    parser.add_argument("--to", dest="end", type=date.fromisoformat, default=date(2025, 11, 28))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        settings = get_settings(data_dir=Path(scratch))
        page = live(settings, args.start, args.end)
    theirs = replayed(args.start, args.end)
    ours = page.overall
    assert ours is not None, "no day of the span has Hugging Face's picks"
    print(
        f"model {page.model_id}; {ours.days} days, {ours.papers} papers, {ours.featured} featured"
    )
    for name, mine, peer in (
        ("Brier skill", ours.brier_skill, theirs["brier_skill"]["mean"]),
        ("calibration error", ours.ece, theirs["ece"]["mean"]),
    ):
        gap = abs(mine - peer)
        verdict = "within" if gap <= TOLERANCE else "OUTSIDE"
        print(f"{name}: page {mine:.4f}, eval-trending {peer:.4f}, {gap:.4f} apart ({verdict})")


def live(settings: Settings, start: date, end: date) -> AccuracyPage:
    # The topic memory reads the vectors of INTEREST_DAYS before each day: they are imported.
    lead = start - timedelta(days=INTEREST_DAYS)
    days = [d for d in prepare_database(settings, CORPUS, MATRIX, [(lead, end)]) if d >= start]
    with open_engine(settings) as engine:
        sessions = make_session_factory(engine)
        print(import_hf_signals(sessions, [LABELS]).lines()[0])
        started = time.perf_counter()
        for day in days:
            with session_scope(sessions) as session:
                rank_day(session, day, settings, default_scorer(settings, session))
        print(f"ranked {len(days)} days live in {time.perf_counter() - started:.0f} s")
        with session_scope(sessions) as session:
            return accuracy_page(session, None)


def replayed(start: date, end: date) -> dict[str, dict[str, float]]:
    corpus = [paper for paper in load_corpus(CORPUS) if paper.announced_on <= end]
    labels = load_labels([LABELS])
    replay = Replay(corpus, load_embeddings(MATRIX), labels)
    results = evaluate(replay, labels, load_model(), start, end)
    summary: dict[str, dict[str, float]] = results["summary"]["paperboy"]
    print(f"eval-trending: {len(results['days'])} days scored")
    return summary


if __name__ == "__main__":
    main()
