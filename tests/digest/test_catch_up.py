"""Which days a catch-up covers, what it says changed, and how it groups its picks."""

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.core.db import session_scope
from app.core.models import (
    Delivery,
    DeliveryStatus,
    Edition,
    EditionKey,
    Topic,
    TopicDay,
    TopicStatus,
)
from digest.catch_up import (
    MAX_DAYS,
    MAX_PAPERS,
    AwayRefusedError,
    Gap,
    away_since,
    changes,
    gap_of,
    gathered,
)
from digest.sections import Sectioned
from digest.selection import Pick, Section
from tests.conftest import Database
from tests.digest.editions import add_subscriber
from tests.digest.test_selection import paper

DAY = date(2025, 12, 19)
NOW = datetime(2025, 12, 19, 8, tzinfo=UTC)


def _editions(database: Database, *days: date) -> None:
    with session_scope(database.sessions) as session:
        for day in days:
            session.add(
                Edition(
                    period="day",
                    edition_date=day,
                    version=1,
                    scorer="baseline",
                    scorer_version="1",
                    algorithm_version="editions-1",
                    diversity_rule="none",
                    pool_size=1,
                    published_at=NOW,
                )
            )


def sent_before(sessions: sessionmaker[Session], subscriber: int, day: date) -> None:
    """A day digest of ``day`` already sent to the reader, as a run leaves it."""
    with session_scope(sessions) as session:
        session.add(
            Delivery(
                subscriber_id=subscriber,
                period="day",
                edition_date=day,
                status=DeliveryStatus.SENT,
                created_at=NOW,
                sent_at=NOW,
            )
        )


def test_a_gap_runs_from_the_day_after_the_last_digest_sent_to_the_edition(
    database: Database,
) -> None:
    reader = add_subscriber(database.sessions, "back@example.org")
    today = EditionKey("day", DAY)
    with database.sessions() as session:
        assert gap_of(session, reader, today) is None  # never sent one: no catch-up
    _editions(database, date(2025, 12, 16), date(2025, 12, 17), date(2025, 12, 18), DAY)
    sent_before(database.sessions, reader, date(2025, 12, 18))
    with database.sessions() as session:
        assert gap_of(session, reader, today) is None  # missed nothing
    sent_before(database.sessions, reader, date(2025, 12, 18) - timedelta(days=100))
    with database.sessions() as session:
        assert gap_of(session, reader, today) is None  # the newest sent counts


def test_a_gap_reaches_back_at_most_thirty_days_and_not_for_a_week_edition(
    database: Database,
) -> None:
    reader = add_subscriber(database.sessions, "away@example.org")
    _editions(database, date(2025, 11, 1), date(2025, 12, 1), DAY)
    sent_before(database.sessions, reader, date(2025, 10, 1))
    with database.sessions() as session:
        gap = gap_of(session, reader, EditionKey("day", DAY))
        week = gap_of(session, reader, EditionKey("week", date(2025, 12, 15)))
    assert gap == Gap(DAY - timedelta(days=MAX_DAYS - 1), DAY) and gap.days == MAX_DAYS
    assert week is None
    with database.sessions() as session:
        said = gap_of(session, reader, EditionKey("day", DAY), away_since=date(2025, 12, 1))
    assert said == Gap(date(2025, 12, 1), DAY)


def _topic(database: Database, label: str, sizes: dict[date, int]) -> None:
    with session_scope(database.sessions) as session:
        topic = Topic(model="m", first_seen_on=min(sizes))
        session.add(topic)
        session.flush()
        for day, size in sizes.items():
            session.add(
                TopicDay(
                    topic_id=topic.id,
                    day=day,
                    size=size,
                    window_size=size,
                    baseline=0.0,
                    momentum=0.0,
                    status=TopicStatus.STEADY,
                    label=label,
                    centroid=b"",
                )
            )


def test_what_changed_names_the_topics_that_grew_most_and_the_new_ones(
    database: Database,
) -> None:
    gap = Gap(date(2025, 12, 15), DAY)  # five days; the five before are 10 to 14 Dec
    before, during = date(2025, 12, 12), date(2025, 12, 17)
    _topic(database, "diffusion", {before: 4, during: 8})
    _topic(database, "agents", {before: 2, during: 9})
    _topic(database, "steady", {before: 5, during: 5})
    _topic(database, "quantum kernels", {during: 4})
    _topic(database, "tiny", {during: 2})
    with database.sessions() as session:
        said = changes(session, gap)
    assert said == [
        "new: “quantum kernels” (4 papers)",
        "“agents” grew 4.5 times (2 → 9 papers)",
        "“diffusion” doubled (4 → 8 papers)",
    ]


def test_picks_for_the_reader_are_grouped_by_topic_and_the_whole_is_capped() -> None:
    def pick(n: int, topic: str | None, section: Section = Section.FOR_YOU) -> Pick:
        return Pick(replace(paper(n), topic_label=topic), "why", section=section)

    picks = [pick(1, "a", Section.FOLLOWED), pick(2, "b"), pick(3, "a"), pick(4, None)]
    picks += [pick(5, "b"), pick(6, "c", Section.TRENDING)]
    chosen = gathered(Sectioned(picks)).picks
    assert [(p.paper.arxiv_id[-1], p.group) for p in chosen] == [
        ("1", ""),
        ("2", "b"),
        ("5", "b"),
        ("3", "a"),
        ("4", "Other papers"),
        ("6", ""),
    ]
    many = [pick(n, "a") for n in range(MAX_PAPERS + 5)]
    assert len(gathered(Sectioned(many)).picks) == MAX_PAPERS


def test_the_day_a_reader_left_is_one_of_the_last_thirty_days() -> None:
    assert away_since("", DAY) is None
    assert away_since(" 2025-12-01 ", DAY) == date(2025, 12, 1)
    for asked, said in (
        ("last week", "is a date, YYYY-MM-DD"),
        ("2025-11-19", f"one of the last {MAX_DAYS} days"),
        ("2025-12-20", f"one of the last {MAX_DAYS} days"),
    ):
        with pytest.raises(AwayRefusedError, match=said):
            away_since(asked, DAY)
