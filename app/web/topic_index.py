"""The topics index (``/topics``): every topic of the recent daily editions (a read, no commits).

A topic is listed under each edition day it was seen on, newest day first and, within a day,
largest first: the index answers "what were the subjects of the last few days", and a topic
that carried on is listed again on each day with that day's label and size.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import Edition, TopicDay, TopicStatus

RECENT_EDITIONS = 7


class IndexedTopic(NamedTuple):
    """One topic as seen on one day: what its link on the index shows."""

    id: int
    label: str
    size: int
    status: TopicStatus


class TopicsOfDay(NamedTuple):
    day: date
    topics: list[IndexedTopic]


@dataclass(frozen=True)
class TopicsIndexPage:
    days: list[TopicsOfDay]


def topics_index(session: Session, editions: int = RECENT_EDITIONS) -> TopicsIndexPage:
    """The topics of the newest ``editions`` daily editions, newest day first."""
    days = list(
        session.scalars(
            select(Edition.edition_date)
            .where(Edition.period == "day")
            .distinct()
            .order_by(Edition.edition_date.desc())
            .limit(editions)
        )
    )
    rows = session.execute(
        select(TopicDay.day, TopicDay.topic_id, TopicDay.label, TopicDay.size, TopicDay.status)
        .where(TopicDay.day.in_(days))
        .order_by(TopicDay.day.desc(), TopicDay.size.desc(), TopicDay.topic_id)
    ).all()
    by_day: dict[date, list[IndexedTopic]] = {day: [] for day in days}
    for row in rows:
        by_day[row.day].append(
            IndexedTopic(id=row.topic_id, label=row.label, size=row.size, status=row.status)
        )
    return TopicsIndexPage([TopicsOfDay(day, topics) for day, topics in by_day.items() if topics])
