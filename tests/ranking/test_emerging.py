"""A week's emerging topics, flagged from a real store and kept in ``emerging_topics``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import delete, select

from app.cli.main import main
from app.core.db import session_scope
from app.core.models import EmergingTopic, Paper, PaperEmbedding
from app.services.daily import flag_week
from tests.conftest import Database
from tests.ranking.planted_radar import FLAGGED_WEEK, HOSTILE, WEEKS, plant

NOW = datetime(2026, 3, 30, 6, 0, tzinfo=UTC)


def _flags(database: Database) -> list[EmergingTopic]:
    with session_scope(database.sessions) as session:
        rows = session.scalars(select(EmergingTopic).order_by(EmergingTopic.position)).all()
        session.expunge_all()
        return list(rows)


def test_the_planted_riser_is_flagged_first_with_its_papers_and_new_phrases(
    database: Database, tmp_path: Path
) -> None:
    planted = plant(database, tmp_path)
    report = flag_week(database.settings, database.sessions, FLAGGED_WEEK + timedelta(days=2))
    assert report.summary.week == FLAGGED_WEEK and report.summary.too_short is None
    first, *rest = _flags(database)
    # k-means may part the riser's papers; the flag holds the part of at least ten.
    assert first.weekly_papers[:8] == [0] * 8 and sum(first.weekly_papers[8:]) >= 10
    assert set(first.founding) <= set(planted["riser"]) and len(first.founding) == 5
    assert first.first_paper in planted["riser"][:5]  # one of the first riser week's
    assert "quantum origami folding" in first.new_phrases
    assert "origami" in first.label.lower()
    assert first.baseline_share == 0.0
    assert first.recent_share == sum(first.weekly_papers[8:]) / (4 * 60 + 20 + 14)
    spike = [row for row in rest if set(row.founding) <= set(planted["spike"])]
    assert spike and spike[0].weekly_papers[-1] == 14  # flagged, below the month's rise


def test_flagging_a_week_again_replaces_its_rows_with_the_same(
    database: Database, tmp_path: Path
) -> None:
    plant(database, tmp_path)
    flag_week(database.settings, database.sessions, FLAGGED_WEEK)
    before = [(r.position, r.founding, r.weekly_papers) for r in _flags(database)]
    flag_week(database.settings, database.sessions, FLAGGED_WEEK, clock=lambda: NOW)
    after = _flags(database)
    assert [(r.position, r.founding, r.weekly_papers) for r in after] == before
    assert {r.computed_at for r in after} == {NOW}


def test_a_store_shorter_than_the_radar_s_weeks_flags_nothing_and_says_why(
    database: Database, tmp_path: Path
) -> None:
    plant(database, tmp_path, weeks=WEEKS - 2)
    report = flag_week(database.settings, database.sessions, FLAGGED_WEEK)
    assert report.summary.too_short is not None
    assert "compares 4 recent weeks with the 8 before them" in report.summary.too_short
    assert _flags(database) == []


def test_the_command_prints_what_it_flagged(database: Database, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    plant(database, tmp_path)
    code = main(["emerging", "--date", FLAGGED_WEEK.isoformat()], database.settings)
    assert code == 0
    assert f"emerging topics for the week of {FLAGGED_WEEK}: " in capsys.readouterr().out
    with session_scope(database.sessions) as session:
        title = session.scalar(select(Paper.title).where(Paper.title.startswith(HOSTILE)))
    assert title is not None  # stored as written: pages escape it


def test_papers_without_vectors_do_not_count_as_the_radar_s_baseline(
    database: Database, tmp_path: Path
) -> None:
    plant(database, tmp_path)
    first_weeks = FLAGGED_WEEK - timedelta(weeks=WEEKS - 1), FLAGGED_WEEK - timedelta(weeks=4)
    with session_scope(database.sessions) as session:
        early = select(Paper.arxiv_id).where(Paper.announced_on.between(*first_weeks))
        session.execute(delete(PaperEmbedding).where(PaperEmbedding.arxiv_id.in_(early)))
    report = flag_week(database.settings, database.sessions, FLAGGED_WEEK)
    assert report.summary.too_short is not None
    assert "this site holds embedded papers from 2026-02-" in report.summary.too_short
    assert _flags(database) == []
