"""Topic quality over 30 consecutive announcement days of the real corpus.

    .venv/bin/python benchmarks/topics_quality.py [--corpus ...] [--matrix ...] \
        [--first 2026-05-01] [--days 30]

Runs ``rank_day`` (the code behind ``paperboy rank``) day after day on a scratch SQLite
database holding the corpus and its precomputed vectors, then reports, averaged over days,
for each day's own papers: silhouette (cosine, assigned papers), the share left unassigned,
the largest topic's share, agreement with arXiv categories (NMI against each paper's first
listed category), and the share of the previous day's topics that keep their id. The peer
in the same run: the same figures for a random assignment of the same topic sizes, where
agreement and silhouette should be near zero.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import numpy as np
from sklearn.metrics import normalized_mutual_info_score, silhouette_score
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.config import Settings, get_settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import Paper, PaperTopic, TopicDay
from benchmarks.corpus_data import (
    CorpusPaper,
    add_days_arguments,
    prepare_database,
    read_corpus,
)
from ranking.embeddings import load_vectors
from ranking.pipeline import default_scorer, rank_day

# Days ranked before the measured ones, so that the first has topics to continue.
WARMUP = timedelta(days=10)


@dataclass(frozen=True, slots=True)
class DayQuality:
    silhouette: float
    unassigned: float
    largest: float
    nmi: float
    kept: float | None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    add_days_arguments(parser)
    args = parser.parse_args()
    papers = {p.arxiv_id: p for p in read_corpus(args.corpus)}
    with tempfile.TemporaryDirectory() as scratch:
        settings = get_settings(data_dir=Path(scratch))
        last = args.first + timedelta(days=args.days * 2)
        days = prepare_database(settings, args.corpus, args.matrix, [(args.first - WARMUP, last)])
        measured = [d for d in days if d >= args.first][: args.days]
        warmup = [d for d in days if d < args.first]
        report(settings, warmup, measured, papers)


def report(
    settings: Settings, warmup: list[date], days: list[date], papers: dict[str, CorpusPaper]
) -> None:
    rng = np.random.default_rng(0)
    ours: list[DayQuality] = []
    peer: list[DayQuality] = []
    with open_engine(settings) as engine:
        sessions = make_session_factory(engine)
        previous: set[int] = set()
        for day in warmup + days:
            with session_scope(sessions) as session:
                rank_day(session, day, settings, default_scorer(settings, session))
                ids, labels, vectors, topics = _day(session, day, settings)
            if day in days:
                categories = [papers[i].categories[0] for i in ids]
                kept = len(previous & topics) / len(previous) if previous else None
                ours.append(_quality(labels, vectors, categories, kept))
                peer.append(_quality(rng.permutation(labels), vectors, categories, None))
            previous = topics
    print(
        f"{len(days)} announcement days {days[0]} .. {days[-1]}, "
        f"{settings.topic_window_days}-day window"
    )
    _print("paperboy topics", ours)
    _print("peer: shuffled topics", peer)


def _day(
    session: Session, day: date, settings: Settings
) -> tuple[list[str], np.ndarray, np.ndarray, set[int]]:
    query = select(PaperTopic.arxiv_id, PaperTopic.topic_id).where(PaperTopic.day == day)
    assigned = {row.arxiv_id: row.topic_id for row in session.execute(query)}
    topics = set(session.scalars(select(TopicDay.topic_id).where(TopicDay.day == day)))
    ids = list(
        session.scalars(
            select(Paper.arxiv_id).where(Paper.announced_on == day).order_by(Paper.arxiv_id)
        )
    )
    vectors = load_vectors(session, ids, settings.embedding_model)
    labels = np.array([assigned.get(i, -1) for i in ids])
    return ids, labels, np.stack([vectors[i] for i in ids]), topics


def _quality(
    labels: np.ndarray, vectors: np.ndarray, categories: list[str], kept: float | None
) -> DayQuality:
    assigned = labels >= 0
    sizes = Counter(labels[assigned].tolist())
    silhouette = (
        float(silhouette_score(vectors[assigned], labels[assigned], metric="cosine"))
        if 1 < len(sizes) < int(assigned.sum())
        else 0.0
    )
    return DayQuality(
        silhouette=silhouette,
        unassigned=float(1 - assigned.mean()),
        largest=max(sizes.values()) / len(labels) if sizes else 0.0,
        nmi=float(normalized_mutual_info_score(categories, labels)),
        kept=kept,
    )


def _print(label: str, days: list[DayQuality]) -> None:
    kept = [d.kept for d in days if d.kept is not None]
    print(
        f"{label:<24} silhouette {statistics.mean(d.silhouette for d in days):.3f}  "
        f"unassigned {statistics.mean(d.unassigned for d in days):.3f}  "
        f"largest topic {statistics.mean(d.largest for d in days):.3f}  "
        f"NMI {statistics.mean(d.nmi for d in days):.3f}  "
        f"ids kept {statistics.mean(kept) if kept else float('nan'):.3f}"
    )


if __name__ == "__main__":
    main()
