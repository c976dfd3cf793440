"""Under the radar: the week's strong papers the crowd missed, picked from stored rows."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from accounts import reader, signin
from app.cli.main import main
from app.core.db import session_scope
from app.core.models import DayScore, HfDailyPaper
from app.services.radar import UnderRadarPick, under_radar_week
from app.web.app import create_app
from app.web.routes.voting import SESSION_COOKIE
from app.web.under_radar import for_reader
from ranking.under_radar import Missed, RadarRule, content_only, pick, week_picks
from tests.conftest import Database
from tests.ranking.axe_check import audited
from tests.ranking.planted_radar import FLAGGED_WEEK, plant

DAY = date(2026, 3, 2)
EARLY_DAY = FLAGGED_WEEK + timedelta(days=1)
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


def _pick(arxiv_id: str, topic: int | None) -> UnderRadarPick:
    return UnderRadarPick(
        arxiv_id=arxiv_id,
        title=arxiv_id,
        announced_on=DAY,
        chance=0.5,
        topic_id=topic,
        topic_label=None,
    )


def test_a_reader_s_slot_puts_followed_topics_first_and_leaves_out_muted_and_shown() -> None:
    picks = [_pick("a", 1), _pick("b", 2), _pick("c", 3), _pick("d", None), _pick("e", 2)]
    assert [p.arxiv_id for p in for_reader(picks, {2}, set(), set())] == ["b", "e", "a"]
    assert [p.arxiv_id for p in for_reader(picks, {2}, {1}, {"b"})] == ["e", "c", "d"]
    assert for_reader([], {2}, set(), set()) == []


def _signed_in(database: Database, stance: reader.Stance, topic: int) -> str:
    """The session cookie of a reader who takes ``stance`` on ``topic``."""
    now = datetime.now(UTC)
    with session_scope(database.sessions) as session:
        found = reader.reader_row(session, "ada@example.org", now)
        reader.set_topic(found, topic, stance)
        return signin.session_token(database.settings, session, "ada@example.org", now)


def _for_you(database: Database, stance: reader.Stance, topic: int) -> str:
    cookie = _signed_in(database, stance, topic)
    with TestClient(create_app(database.settings)) as site:
        return site.get("/for-you", headers={"cookie": f"{SESSION_COOKIE}={cookie}"}).text


@pytest.fixture
def two_days(database: Database, tmp_path: Path) -> list[UnderRadarPick]:
    """The planted store with two days of its week ranked; Hugging Face's records judge the
    early one only, and the For-you page shows the later one. Gives the early day's picks."""
    plant(database, tmp_path)
    for day in (EARLY_DAY, FLAGGED_WEEK + timedelta(days=4)):
        assert main(["rank", "--date", day.isoformat()], database.settings) == 0
    with session_scope(database.sessions) as session:
        session.add(_record("2601.00001", EARLY_DAY + timedelta(days=2)))
    with session_scope(database.sessions) as session:
        picked = under_radar_week(session, None).picks
    assert picked and {p.announced_on for p in picked} == {EARLY_DAY}
    return picked


def test_for_you_labels_the_week_s_missed_papers_in_a_slot_that_mutes_leave_out(
    database: Database, two_days: list[UnderRadarPick]
) -> None:
    first = two_days[0]
    assert first.topic_id is not None
    page = _for_you(database, reader.Stance.FOLLOW, first.topic_id)
    slot = re.search(r'<section class="under-radar-slot".*?</section>', page, re.S)
    assert slot is not None
    assert "<h2" in slot.group(0) and "Under the radar</h2>" in slot.group(0)
    assert "Strong papers the crowd missed, week of 23 Mar 2026" in slot.group(0)
    assert f'href="/papers/{first.arxiv_id}"' in slot.group(0)
    assert ", a topic you follow)" in slot.group(0)
    assert 'href="/under-the-radar?week=2026-W13"' in slot.group(0)
    muted = _for_you(database, reader.Stance.MUTE, first.topic_id)
    assert f'href="/papers/{first.arxiv_id}"' not in muted
    assert len(two_days) > 1 or 'class="under-radar-slot"' not in muted


@pytest.mark.browser
def test_for_you_with_its_slot_passes_axe_in_both_themes_and_without_scripts(
    database: Database, two_days: list[UnderRadarPick]
) -> None:
    topic = two_days[0].topic_id
    assert topic is not None
    cookie = _signed_in(database, reader.Stance.FOLLOW, topic)
    found = audited(database.settings, "/for-you", [(SESSION_COOKIE, cookie)])
    assert found == {"light": [], "dark": [], "no-scripts": []}


def test_the_page_says_when_the_history_before_a_week_is_too_short_to_judge(
    database: Database, two_days: list[UnderRadarPick]
) -> None:
    with TestClient(create_app(database.settings)) as site:
        judged = site.get("/under-the-radar?week=2026-W13").text
        first_week = " ".join(site.get("/under-the-radar?week=2026-W02").text.split())
    # Eleven weeks of weekdays before: the picks' chances stand on a whole topic window.
    assert f'href="/papers/{two_days[0].arxiv_id}"' in judged and 'data-chance="content"' in judged
    assert "Too few days to judge" not in judged
    assert "<strong>Too few days to judge</strong>" in first_week
    assert "this site holds 0 days of papers before this week" in first_week
    assert "<code>docs/benchmarks.md#f-under-radar</code>" in first_week
