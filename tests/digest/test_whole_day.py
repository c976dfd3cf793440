"""A digest chooses from every paper announced that day, not only the day's edition: the
sample's 2025-12-19 is ranked for real (`paperboy rank`), and the digests travel through a real
SMTP server (`paperboy send-digests`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

import numpy as np
import pytest
from sqlalchemy import func, select

from accounts.saved_searches import save_search
from app.cli.main import main
from app.core.clock import utc_now
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import (
    DayScore,
    Edition,
    EditionItem,
    Frequency,
    Paper,
    PaperAuthor,
    Subscriber,
)
from ingest.bulk.importer import import_file
from ranking.embeddings import check_matrix, import_matrix
from tests.conftest import SAMPLE_PATH, Database
from tests.digest.conftest import Smtp
from tests.digest.editions import add_subscriber
from tests.digest.test_catch_up import sent_before
from tests.ranking.conftest import SAMPLE_IDS, SAMPLE_MATRIX

DAY = date(2025, 12, 19)


@dataclass(frozen=True)
class RankedDay:
    settings: Settings
    database: Database


@pytest.fixture
def ranked_day(database: Database, mail_settings: Settings) -> Iterator[RankedDay]:
    settings = mail_settings.model_copy(update={"topic_labels_by_meaning": False})
    import_file(SAMPLE_PATH, database.sessions)
    vectors, ids = check_matrix(np.load(SAMPLE_MATRIX), json.loads(SAMPLE_IDS.read_text()))
    with session_scope(database.sessions) as session:
        import_matrix(session, vectors, ids, settings.embedding_model)
    assert main(["rank", "--date", DAY.isoformat(), "--quiet"], settings) == 0
    yield RankedDay(settings, database)


def day_edition(ranked: RankedDay, day: date = DAY) -> Edition:
    return _edition(ranked, "day", day)


def _edition(ranked: RankedDay, period: str, key: date) -> Edition:
    with ranked.database.sessions() as session:
        edition = session.scalars(
            select(Edition).where(Edition.period == period, Edition.edition_date == key)
        ).one()
        session.expunge(edition)
        return edition


def an_author_outside_the_edition(
    ranked: RankedDay, edition: Edition | None = None, days: tuple[date, ...] = (DAY,)
) -> tuple[str, str, str]:
    """(author key, author name, title) of a paper of ``days`` that the edition (the day's by
    default) leaves out and whose authors have no paper in it."""
    edition = edition or day_edition(ranked)
    scored_in = [day_edition(ranked, day).id for day in days]
    with ranked.database.sessions() as session:
        shown = set(
            session.scalars(
                select(EditionItem.arxiv_id).where(EditionItem.edition_id == edition.id)
            )
        )
        shown_authors = set(
            session.scalars(select(PaperAuthor.author_key).where(PaperAuthor.arxiv_id.in_(shown)))
        )
        ranked_rows = session.execute(
            select(DayScore.arxiv_id, Paper.title)
            .join(Paper, Paper.arxiv_id == DayScore.arxiv_id)
            .where(DayScore.edition_id.in_(scored_in))
            .order_by(DayScore.rank.desc())
        ).all()
        for arxiv_id, title in ranked_rows:
            if arxiv_id in shown:
                continue
            authors = session.execute(
                select(PaperAuthor.author_key, PaperAuthor.name).where(
                    PaperAuthor.arxiv_id == arxiv_id
                )
            ).all()
            alone = [(key, name) for key, name in authors if key not in shown_authors]
            if alone:
                return alone[0][0], alone[0][1], title
    raise AssertionError("every paper of the day is in its edition")


def assert_followed_paper_mailed(smtp: Smtp, reader: str, name: str, title: str) -> str:
    """The reader's one mail holds ``title`` in its followed section, with why; its plain
    text, whitespace collapsed, is returned."""
    [mail] = smtp.handler.to(reader)
    text = mail.get_body(("plain",))
    assert text is not None
    body = " ".join(str(text.get_content()).split())
    heading = "== From authors and topics you follow =="
    assert heading in body
    followed_part = body[body.index(heading) :]
    assert " ".join(title.split())[:60] in followed_part
    assert f"Why: by {name}, whom you follow" in followed_part
    return body


def test_every_paper_announced_that_day_is_scored_and_ranked(ranked_day: RankedDay) -> None:
    edition = day_edition(ranked_day)
    with ranked_day.database.sessions() as session:
        announced = session.scalar(
            select(func.count()).select_from(Paper).where(Paper.announced_on == DAY)
        )
        ranks = list(
            session.scalars(
                select(DayScore.rank)
                .where(DayScore.edition_id == edition.id)
                .order_by(DayScore.rank)
            )
        )
        scores = list(
            session.scalars(
                select(DayScore.score)
                .where(DayScore.edition_id == edition.id)
                .order_by(DayScore.rank)
            )
        )
        items = session.scalar(select(func.count()).where(EditionItem.edition_id == edition.id))
    assert announced == edition.pool_size == len(ranks) > (items or 0)
    assert ranks == list(range(1, len(ranks) + 1))
    assert scores == sorted(scores, reverse=True)


def test_ranking_the_day_again_keeps_one_whole_day_per_edition(ranked_day: RankedDay) -> None:
    assert main(["rank", "--date", DAY.isoformat(), "--quiet"], ranked_day.settings) == 0
    with ranked_day.database.sessions() as session:
        per_edition = session.execute(
            select(DayScore.edition_id, func.count()).group_by(DayScore.edition_id)
        ).all()
    assert len(per_edition) == 1 and per_edition[0][1] == day_edition(ranked_day).pool_size


def test_a_followed_authors_paper_outside_the_edition_is_mailed_in_its_own_section(
    ranked_day: RankedDay, smtp: Smtp
) -> None:
    key, name, title = an_author_outside_the_edition(ranked_day)
    reader = "follower@example.org"
    add_subscriber(
        ranked_day.database.sessions,
        reader,
        followed_authors=[key],
        categories=["q-bio.NC"],  # a field the followed paper is not in: a follow is by name
        delivery_hour=0,
        max_items=5,
    )
    assert main(["send-digests", "--date", DAY.isoformat()], ranked_day.settings) == 0
    assert_followed_paper_mailed(smtp, reader, name, title)


def test_the_trending_section_repeats_no_paper_of_the_others(
    ranked_day: RankedDay, smtp: Smtp
) -> None:
    reader = "reader@example.org"
    add_subscriber(
        ranked_day.database.sessions, reader, interests="protein folding", delivery_hour=0
    )
    assert main(["send-digests", "--date", DAY.isoformat()], ranked_day.settings) == 0
    [mail] = smtp.handler.to(reader)
    part = mail.get_body(("plain",))
    assert part is not None
    links = [
        line.split("arXiv: ", 1)[1]
        for line in str(part.get_content()).splitlines()
        if "arXiv: https://arxiv.org/abs/" in line
    ]
    assert len(links) == len(set(links)) > 0
    assert "== Trending today ==" in str(part.get_content())


WEEK = (date(2025, 12, 17), date(2025, 12, 18), DAY)


def test_a_weekly_digest_chooses_from_every_paper_of_the_week(
    ranked_day: RankedDay, smtp: Smtp
) -> None:
    for day in WEEK[:-1]:
        assert main(["rank", "--date", day.isoformat(), "--quiet"], ranked_day.settings) == 0
    assert main(["publish", "--date", DAY.isoformat()], ranked_day.settings) == 0
    week = _edition(ranked_day, "week", date(2025, 12, 15))
    key, name, title = an_author_outside_the_edition(ranked_day, week, WEEK)
    reader = "weekly@example.org"
    add_subscriber(
        ranked_day.database.sessions,
        reader,
        followed_authors=[key],
        frequency=Frequency.WEEKLY,
        weekday=utc_now().weekday(),
        delivery_hour=0,
        max_items=5,
    )
    assert main(["send-digests", "--date", DAY.isoformat()], ranked_day.settings) == 0
    body = assert_followed_paper_mailed(smtp, reader, name, title)
    assert "== Trending this week ==" in body


def test_a_saved_search_mails_what_it_finds_that_day_in_its_own_section(
    ranked_day: RankedDay, smtp: Smtp
) -> None:
    _key, _name, title = an_author_outside_the_edition(ranked_day)
    words = " ".join(title.split()[:4])
    without = f"{words} -{title.split()[0]}"  # the same search, the title's first word out
    for reader, query in (("searcher@example.org", words), ("picky@example.org", without)):
        subscriber = add_subscriber(
            ranked_day.database.sessions, reader, categories=["q-bio.NC"], delivery_hour=0
        )
        with session_scope(ranked_day.database.sessions) as session:
            save_search(session, session.get_one(Subscriber, subscriber), query, "", utc_now())
    # Keyword search alone: the query model is not loaded for this test.
    settings = ranked_day.settings.model_copy(update={"search_semantic": False})
    assert main(["send-digests", "--date", DAY.isoformat()], settings) == 0
    body = _plain_text(smtp, "searcher@example.org")
    heading = f"== New for “{words}” =="
    assert heading in body
    section = body[body.index(heading) + len(heading) :].split(" == ")[0]
    assert " ".join(title.split())[:60] in section
    assert f"Why: matches your search “{words}”" in section
    assert " ".join(title.split())[:60] not in _plain_text(smtp, "picky@example.org")


def _plain_text(smtp: Smtp, reader: str) -> str:
    [mail] = smtp.handler.to(reader)
    text = mail.get_body(("plain",))
    assert text is not None
    return " ".join(str(text.get_content()).split())


def test_a_reader_back_after_missed_days_gets_one_catch_up_of_the_gap(
    ranked_day: RankedDay, smtp: Smtp
) -> None:
    for day in WEEK[:-1]:
        assert main(["rank", "--date", day.isoformat(), "--quiet"], ranked_day.settings) == 0
    back = add_subscriber(ranked_day.database.sessions, "back@example.org", delivery_hour=0)
    # Sent on 16 Dec, then paused: 17 and 18 Dec missed.
    sent_before(ranked_day.database.sessions, back, date(2025, 12, 16))
    steady = add_subscriber(ranked_day.database.sessions, "steady@example.org", delivery_hour=0)
    sent_before(ranked_day.database.sessions, steady, WEEK[1])
    assert main(["send-digests", "--date", DAY.isoformat()], ranked_day.settings) == 0
    [mail] = smtp.handler.to("back@example.org")
    assert mail["Subject"] == "Paperboy: while you were away, 17 Dec 2025 to 19 Dec 2025"
    body = _plain_text(smtp, "back@example.org")
    assert "While you were away, 17 Dec 2025 to 19 Dec 2025: this one digest gathers" in body
    links = re.findall(r"arXiv: https://arxiv.org/abs/(\S+)", body)
    assert 10 < len(links) <= 30 and len(links) == len(set(links))
    with ranked_day.database.sessions() as session:
        days = set(session.scalars(select(Paper.announced_on).where(Paper.arxiv_id.in_(links))))
    assert days - {DAY}, "the catch-up holds papers of the missed days"
    assert "== Picked for you: " in body  # grouped by topic
    [usual] = smtp.handler.to("steady@example.org")
    assert "while you were away" not in usual["Subject"]


def test_a_reader_who_says_they_were_away_gets_one_catch_up_and_then_the_usual(
    ranked_day: RankedDay, smtp: Smtp
) -> None:
    for day in WEEK[:-1]:
        assert main(["rank", "--date", day.isoformat(), "--quiet"], ranked_day.settings) == 0
    reader = add_subscriber(
        ranked_day.database.sessions, "away@example.org", delivery_hour=0, away_since=WEEK[0]
    )
    sent_before(ranked_day.database.sessions, reader, WEEK[1])  # mailed, but they were away
    assert main(["send-digests", "--date", DAY.isoformat()], ranked_day.settings) == 0
    [mail] = smtp.handler.to("away@example.org")
    assert mail["Subject"] == "Paperboy: while you were away, 17 Dec 2025 to 19 Dec 2025"
    with ranked_day.database.sessions() as session:
        assert session.get_one(Subscriber, reader).away_since is None  # answered


def test_a_followed_author_or_topic_no_longer_stored_leaves_the_digest_whole(
    ranked_day: RankedDay, smtp: Smtp
) -> None:
    reader = "faithful@example.org"
    add_subscriber(
        ranked_day.database.sessions,
        reader,
        followed_authors=["no-longer-here"],
        followed_topics=[2**31 - 1],
        delivery_hour=0,
        max_items=3,
    )
    assert main(["send-digests", "--date", DAY.isoformat()], ranked_day.settings) == 0
    body = _plain_text(smtp, reader)
    assert "== Picked for you ==" in body and "whom you follow" not in body
