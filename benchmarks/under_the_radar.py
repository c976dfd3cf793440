"""Under the radar, measured: of the papers picked as strong but missed by the crowd, how many
Hugging Face featured later, against random missed papers of the same topics and weeks.

    .venv/bin/python -m benchmarks.under_the_radar [--per-topic 2] [--quantile 0.95]

Imports the corpus into a scratch SQLite database with the vectors of 2025-04-01 … 11-30 (and
the days the topic memory reads before) and Hugging Face's records, ranks every day live as
``paperboy rank`` does, then picks each week's papers with ``ranking/under_radar.py``. A paper
is recognised later when Hugging Face featured it more than ``seen_days`` after its
announcement. The peer: the expected rate of a random missed paper of the same topic and
week, that is, each pick's topic-week pool's rate. Settings are chosen on weeks of April to
August and reported on September to November.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from datetime import date, timedelta
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.config import get_settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import HfDailyPaper
from app.services.ingest import import_hf_signals
from benchmarks.corpus_data import CORPUS, MATRIX, prepare_database
from benchmarks.scorecard import LABELS
from ranking.pipeline import default_scorer, rank_day
from ranking.trending.features import INTEREST_DAYS
from ranking.under_radar import Missed, RadarRule, WeekPool, pick, week_pool

START, END = date(2025, 4, 1), date(2025, 11, 30)
SPANS = (("chosen on 2025-04…08", {4, 5, 6, 7, 8}), ("reported on 2025-09…11", {9, 10, 11}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    defaults = RadarRule()
    parser.add_argument("--per-topic", type=int, default=defaults.per_topic)
    parser.add_argument("--quantile", type=float, default=defaults.quantile)
    args = parser.parse_args()
    rule = RadarRule(per_topic=args.per_topic, quantile=args.quantile)
    with tempfile.TemporaryDirectory() as scratch:
        pools, later = ranked_pools(Path(scratch), rule)
    for name, months in SPANS:
        picked, hits, expected = measure([p for p in pools if p.week.month in months], later, rule)
        print(
            f"{name}: {picked} picks, {hits} featured later ({hits / max(picked, 1):.2%}); "
            f"random missed papers of the same topics and weeks {expected / max(picked, 1):.2%}:"
            f" {hits / expected if expected else 0:.2f}x (goal at least 2x)"
        )


def ranked_pools(scratch: Path, rule: RadarRule) -> tuple[list[WeekPool], set[str]]:
    settings = get_settings(data_dir=scratch, topic_labels_by_meaning=False)
    lead = START - timedelta(days=INTEREST_DAYS)
    days = [d for d in prepare_database(settings, CORPUS, MATRIX, [(lead, END)]) if d >= START]
    with open_engine(settings) as engine:
        sessions = make_session_factory(engine)
        print(import_hf_signals(sessions, [LABELS]).lines()[0])
        for day in days:
            with session_scope(sessions) as session:
                rank_day(session, day, settings, default_scorer(settings, session))
        with session_scope(sessions) as session:
            mondays = sorted({day - timedelta(days=day.weekday()) for day in days})
            pools = [week_pool(session, monday, rule.seen_days) for monday in mondays]
            later = _featured_later(session, rule.seen_days, pools)
    return pools, later


def _featured_later(session: Session, seen_days: int, pools: list[WeekPool]) -> set[str]:
    announced = {paper.arxiv_id: paper.announced_on for pool in pools for paper in pool.missed}
    rows = session.execute(select(HfDailyPaper.arxiv_id, HfDailyPaper.daily_date))
    return {
        arxiv_id
        for arxiv_id, day in rows
        if arxiv_id in announced and (day - announced[arxiv_id]).days > seen_days
    }


def measure(pools: list[WeekPool], later: set[str], rule: RadarRule) -> tuple[int, int, float]:
    picked = hits = 0
    expected = 0.0
    for pool in pools:
        by_topic: dict[int, list[Missed]] = defaultdict(list)
        for paper in pool.missed:
            if paper.topic_id is not None:
                by_topic[paper.topic_id].append(paper)
        for paper in pick(pool.missed, pool.everyone, rule):
            assert paper.topic_id is not None
            same = by_topic[paper.topic_id]
            picked += 1
            hits += paper.arxiv_id in later
            expected += sum(p.arxiv_id in later for p in same) / len(same)
    return picked, hits, expected


if __name__ == "__main__":
    main()
