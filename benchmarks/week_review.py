"""The week in review's coverage: the share of the week's Hugging Face-featured papers that sit
in the topics the review names, against naming the fastest-growing topics instead.

    .venv/bin/python -m benchmarks.week_review [--from 2025-10-06] [--to 2025-11-30]

Imports the corpus into a scratch SQLite database with the vectors of the span (and of the
days the topic memory reads before it) and Hugging Face's records, ranks each day live as
``paperboy rank`` does, then writes up each whole week from the fifth on (four weeks before
it give its topics a past), as ``paperboy week-review`` does. The peer in the same run: the
same number of topics chosen by growth against their own four weeks before, as "rising
topics" alone would name them. Also checks that writing a week twice gives the same body.
"""

from __future__ import annotations

import argparse
import tempfile
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from app.core.config import Settings, get_settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.services.ingest import import_hf_signals
from benchmarks.corpus_data import CORPUS, MATRIX, prepare_database
from benchmarks.scorecard import LABELS
from ranking.pipeline import default_scorer, rank_day
from ranking.trending.features import INTEREST_DAYS
from ranking.week_review import (
    EARLIER_WEEKS,
    TOPICS_NAMED,
    Review,
    ReviewInputs,
    review,
    review_inputs,
)

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="start", type=date.fromisoformat, default=date(2025, 10, 6))
    parser.add_argument("--to", dest="end", type=date.fromisoformat, default=date(2025, 11, 30))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        settings = get_settings(data_dir=Path(scratch))
        weeks = measure(settings, args.start, args.end)
    featured = sum(w[0].featured for w in weeks)
    ours = sum(w[0].covered for w in weeks)
    peer = sum(w[1] for w in weeks)
    print(
        f"all weeks: review {ours} of {featured} ({ours / featured:.1%}); rising topics "
        f"{peer} of {featured} ({peer / featured:.1%}); goal at least half"
    )


def measure(settings: Settings, start: date, end: date) -> list[tuple[Review, int]]:
    lead = start - timedelta(days=INTEREST_DAYS)
    days = [d for d in prepare_database(settings, CORPUS, MATRIX, [(lead, end)]) if d >= start]
    found: list[tuple[Review, int]] = []
    with open_engine(settings) as engine:
        sessions = make_session_factory(engine)
        print(import_hf_signals(sessions, [LABELS]).lines()[0])
        for day in days:
            with session_scope(sessions) as session:
                rank_day(session, day, settings, default_scorer(settings, session))
        monday = start - timedelta(days=start.weekday()) + timedelta(weeks=EARLIER_WEEKS)
        while monday + timedelta(days=6) <= end:
            with session_scope(sessions) as session:
                inputs = review_inputs(session, monday)
            written, again = review(inputs), review(inputs)
            assert written.as_json() == again.as_json(), "a second write-up differs"
            rising = _rising_covered(inputs)
            print(
                f"week of {monday}: {written.papers} papers, featured {written.featured}, "
                f"in the review's topics {written.covered} ({written.coverage:.0%}), in the "
                f"{TOPICS_NAMED} fastest-growing {rising}"
            )
            found.append((written, rising))
            monday += timedelta(weeks=1)
    return found


def _rising_covered(inputs: ReviewInputs) -> int:
    """Featured papers in the topics that grew most against their own weeks before."""
    sizes: dict[int, int] = {}
    for paper in inputs.papers:
        if paper.topic_id is not None:
            sizes[paper.topic_id] = sizes.get(paper.topic_id, 0) + 1
    growth = {t: (n + 1) / (inputs.earlier_counts.get(t, 0.0) + 1) for t, n in sizes.items()}
    chosen = set(sorted(growth, key=lambda t: (-growth[t], t))[:TOPICS_NAMED])
    return sum(1 for p in inputs.papers if p.upvotes is not None and p.topic_id in chosen)


if __name__ == "__main__":
    main()
