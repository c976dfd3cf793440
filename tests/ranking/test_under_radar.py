"""Under the radar: the week's strong papers the crowd missed, picked from stored rows."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from sqlalchemy import select

from app.cli.main import main
from app.core.db import session_scope
from app.core.models import DayScore, HfDailyPaper
from ranking.under_radar import Missed, RadarRule, content_only, pick, week_picks
from tests.conftest import Database
from tests.ranking.planted_radar import FLAGGED_WEEK, plant

DAY = date(2026, 3, 2)
RULE = RadarRule(per_topic=2, quantile=0.5)


def _missed(arxiv_id: str, topic: int | None, content: float) -> Missed:
    return Missed(arxiv_id=arxiv_id, topic_id=topic, announced_on=DAY, content=content)


def test_content_only_leaves_out_votes_and_fame() -> None:
    parts = {"prior": -2.0, "topic_momentum": 0.5, "author_history": 3.0, "community": 1.0}
    assert content_only(parts) == -1.5


def test_picks_are_the_best_missed_papers_of_each_topic_above_the_week_s_quantile() -> None:
    missed = [
        _missed("a1", 1, 3.0),
        _missed("a2", 1, 2.5),
        _missed("a3", 1, 2.4),  # third of its topic
        _missed("b1", 2, 1.0),  # below the week's median
        _missed("c1", None, 9.0),  # no topic
        _missed("d1", 3, 2.0),
    ]
    everyone = [3.0, 2.5, 2.4, 1.0, 9.0, 2.0, 0.5, 0.1, 1.5, 1.2]
    assert [p.arxiv_id for p in pick(missed, everyone, RULE)] == ["a1", "a2", "d1"]
    assert pick([], everyone, RULE) == [] and pick(missed, [], RULE) == []


def test_a_paper_the_crowd_featured_early_is_never_picked(
    database: Database, tmp_path: Path
) -> None:
    plant(database, tmp_path)
    last_day = FLAGGED_WEEK + timedelta(days=4)
    assert main(["rank", "--date", last_day.isoformat()], database.settings) == 0
    with session_scope(database.sessions) as session:
        ranked = session.scalars(select(DayScore).order_by(DayScore.score.desc())).all()
        early, late = ranked[0].arxiv_id, ranked[1].arxiv_id
        session.add(_record(early, last_day + timedelta(days=1)))
        session.add(_record(late, last_day + timedelta(days=6)))
    with session_scope(database.sessions) as session:
        found = week_picks(session, last_day, RadarRule(per_topic=1, quantile=0.0))
    assert found.week == FLAGGED_WEEK and found.judged_until == last_day + timedelta(days=4)
    picked = [p.arxiv_id for p in found.picks]
    assert picked and early not in picked
    topics = [p.topic_id for p in found.picks]
    assert len(topics) == len(set(topics))  # one a topic
    contents = [p.content for p in found.picks]
    assert contents == sorted(contents, reverse=True)


def _record(arxiv_id: str, day: date) -> HfDailyPaper:
    return HfDailyPaper(
        daily_date=day,
        arxiv_id=arxiv_id,
        upvotes=3,
        num_comments=0,
        ai_keywords=[],
        fetched_at=datetime(2026, 4, 1, tzinfo=UTC),
    )
