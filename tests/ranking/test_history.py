"""Filling history: ranking a range of days, the daily job catching up, week editions of their
own. On the bundled sample (three announcement days, 2025-12-17 .. 2025-12-19) with its real
vectors and the shipped scorer."""

from datetime import UTC, date, datetime

import pytest
from sqlalchemy import select

from app.cli.main import main
from app.core.models import Edition, Paper, TopicDay
from app.core.reads import latest_edition
from app.services.daily import run_daily
from ranking.editions import PERIOD_ALGORITHM, stored_items
from tests.conftest import Database

DAYS = [date(2025, 12, 17), date(2025, 12, 18), date(2025, 12, 19)]
WEEK = date(2025, 12, 15)
NOW = datetime(2025, 12, 19, 22, tzinfo=UTC)


def published(database: Database, period: str) -> list[date]:
    with database.sessions() as session:
        query = select(Edition.edition_date).where(Edition.period == period)
        return sorted(session.scalars(query.order_by(Edition.edition_date)))


@pytest.mark.parametrize("command", [["rank"], ["run-daily", "--skip-ingest"]])
def test_a_range_ranks_each_announcement_day_oldest_first_then_its_week_and_month_once(
    embedded_db: Database, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    # The 13th, 14th, 20th and 21st have no announcement: they are skipped.
    args = [*command, "--from", "2025-12-13", "--to", "2025-12-21", "--quiet"]
    assert main(args, embedded_db.settings) == 0
    lines = capsys.readouterr().out.splitlines()
    days = [line.split()[2] for line in lines if line.startswith("day edition")]
    assert days == ["2025-12-17", "2025-12-18", "2025-12-19"]
    assert [line for line in lines if line.startswith(("week edition", "month edition"))] == [
        "week edition 2025-12-15 v1 published: 100 of 491 papers",
        "month edition 2025-12-01 v1 published: 100 of 491 papers",
    ]
    # With its publication the week is written up, once; its radar has no baseline yet.
    written = [line for line in lines if line.startswith("week in review for the week of")]
    assert len(written) == 1 and written[0].startswith("week in review for the week of 2025-12-15")
    assert sum(line.startswith("emerging topics for the week of 2025-12-15") for line in lines) == 1
    assert published(embedded_db, "day") == DAYS
    week_is_its_own_ranking_with_topics_clustered_over_its_days(embedded_db)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["rank", "--from", "2025-12-17"], "--from and --to go together"),
        (["rank", "--from", "2025-12-19", "--to", "2025-12-17"], "is after --to"),
        (
            ["rank", "--date", "2025-12-17", "--from", "2025-12-17", "--to", "2025-12-18"],
            "not both",
        ),
        (["rank"], "give --date D, or --from D1 --to D2"),
        (["run-daily", "--from", "2025-12-17", "--to", "2025-12-18"], "add --skip-ingest"),
    ],
)
def test_a_range_needs_both_ends_in_order_and_ranks_only_what_is_stored(
    embedded_db: Database, capsys: pytest.CaptureFixture[str], args: list[str], error: str
) -> None:
    assert main(args, embedded_db.settings) == 1
    assert error in capsys.readouterr().err
    assert published(embedded_db, "day") == []


def test_the_daily_job_also_ranks_the_days_a_missed_run_left_unranked(
    embedded_db: Database,
) -> None:
    assert main(["rank", "--date", "2025-12-17"], embedded_db.settings) == 0
    report = run_daily(embedded_db.settings, embedded_db.sessions, NOW, DAYS[-1], skip_ingest=True)
    assert [ranked.day for ranked in report.days] == DAYS[1:]
    assert report.failure is None and published(embedded_db, "day") == DAYS
    # Once, at the end of the run: the week and the month, from all three days.
    assert [ranked.published is not None for ranked in report.days] == [False, True]
    assert published(embedded_db, "week") == [WEEK]


def test_before_anything_is_ranked_the_daily_job_ranks_only_its_day(
    embedded_db: Database,
) -> None:
    report = run_daily(embedded_db.settings, embedded_db.sessions, NOW, DAYS[-1], skip_ingest=True)
    assert [ranked.day for ranked in report.days] == [DAYS[-1]]
    assert published(embedded_db, "day") == [DAYS[-1]]


def week_is_its_own_ranking_with_topics_clustered_over_its_days(database: Database) -> None:
    """Checked after each way of ranking a range (one ranking a test: they take a while)."""
    with database.sessions() as session:
        week = latest_edition(session, "week", WEEK)
        last_day = latest_edition(session, "day", DAYS[-1])
        assert week is not None and last_day is not None
        items, day_items = stored_items(week), stored_items(last_day)
        week_topics = set(session.scalars(select(TopicDay.topic_id).where(TopicDay.day.in_(DAYS))))
        announced = dict(
            session.execute(
                select(Paper.arxiv_id, Paper.announced_on).where(
                    Paper.arxiv_id.in_([item.arxiv_id for item in items])
                )
            ).all()
        )
    assert week.algorithm_version == PERIOD_ALGORITHM
    # Every paper has a topic, one of those its days found, so the topic filter has choices.
    assert all(item.topic_id in week_topics for item in items)
    assert len({item.topic_id for item in items}) > 5
    # Its own order: the week's best come from its days, not one day's list again.
    assert len({announced[item.arxiv_id] for item in items[:20]}) > 1
    assert [i.arxiv_id for i in items[:10]] != [i.arxiv_id for i in day_items[:10]]
    # No chance (that is a day's estimate); the parts add up to the score.
    for item in items:
        assert item.chance is None
        assert sum(item.components.values()) == pytest.approx(item.score, abs=1e-6)
