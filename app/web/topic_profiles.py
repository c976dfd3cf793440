"""A topic's profile: its page and its API bodies (reads only, no commits).

:func:`topic_page` returns the view model its template shows, :func:`topic_json` the API body
built from it, so the page and the API say the same thing; :func:`topics_json` lists them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import PaperTopic, TopicDay, TopicStatus
from app.core.vectors import unpack
from app.web import api_models as api
from app.web import queries
from app.web.people import topic_followers
from app.web.view_models import Card, SizeBar, TopicChip, bars, key_phrases

RELATED = 5


class DayPapers(NamedTuple):
    """A topic's papers of one day."""

    day: date
    cards: list[Card]


class RelatedTopic(NamedTuple):
    """Another topic of the same day, and how close its centroid is (cosine)."""

    topic: TopicChip
    cosine: float


@dataclass(frozen=True)
class TopicPage:
    topic: TopicChip
    phrases: list[str]
    status: TopicStatus
    first_seen_on: date
    sizes: list[SizeBar]
    days: list[DayPapers]
    related: list[RelatedTopic]
    followers: int = 0  # readers following it (a count only: who follows stays private)
    stance: str = ""  # the signed-in reader's on it: "follow", "mute" or ""


def topic_page(session: Session, topic_id: int) -> TopicPage | None:
    days = list(
        session.scalars(
            select(TopicDay).where(TopicDay.topic_id == topic_id).order_by(TopicDay.day)
        )
    )
    if not days:
        return None
    latest = days[-1]
    chip = TopicChip(topic_id, latest.label)
    return TopicPage(
        topic=chip,
        phrases=key_phrases(latest.label),
        status=latest.status,
        first_seen_on=days[0].day,
        sizes=bars({d.day: d.size for d in days}),
        days=_papers_by_day(session, topic_id),
        related=_related(session, latest),
        followers=topic_followers(session, topic_id),
    )


def _papers_by_day(session: Session, topic_id: int) -> list[DayPapers]:
    rows = session.execute(
        select(PaperTopic.day, PaperTopic.arxiv_id)
        .where(PaperTopic.topic_id == topic_id)
        .order_by(PaperTopic.day.desc(), PaperTopic.arxiv_id)
    ).all()
    plain = queries.plain_cards(session, [r.arxiv_id for r in rows])
    cards = {c.paper.arxiv_id: c for c in queries.with_day_chances(session, plain)}
    grouped: dict[date, list[Card]] = {}
    for row in rows:
        if row.arxiv_id in cards:
            grouped.setdefault(row.day, []).append(cards[row.arxiv_id])
    return [DayPapers(day, cards_of_day) for day, cards_of_day in grouped.items()]


def _related(session: Session, latest: TopicDay) -> list[RelatedTopic]:
    """Other topics of the same day, closest centroids first."""
    others = list(
        session.scalars(
            select(TopicDay).where(TopicDay.day == latest.day, TopicDay.topic_id != latest.topic_id)
        )
    )
    if not others:
        return []
    mine = unpack(latest.centroid)
    similarity = [float(np.dot(mine, unpack(o.centroid))) for o in others]
    ranked = sorted(zip(similarity, others, strict=True), key=lambda so: -so[0])[:RELATED]
    return [RelatedTopic(TopicChip(o.topic_id, o.label), s) for s, o in ranked]


def topic_json(session: Session, topic_id: int) -> api.TopicProfile | None:
    page = topic_page(session, topic_id)
    if page is None:
        return None
    return api.TopicProfile(
        id=page.topic.id,
        label=page.topic.label,
        keyPhrases=page.phrases,
        status=page.status,
        firstSeenOn=page.first_seen_on.isoformat(),
        sizes=[api.TopicSize(day=bar.day.isoformat(), size=bar.size) for bar in page.sizes],
        papersByDay=[
            api.TopicDayPapers(
                day=one.day.isoformat(), papers=[c.paper.arxiv_id for c in one.cards]
            )
            for one in page.days
        ],
        related=[
            api.RelatedTopic(id=one.topic.id, label=one.topic.label, cosine=round(one.cosine, 4))
            for one in page.related
        ],
    )


def topics_json(session: Session) -> list[api.TopicSummary]:
    latest = (
        select(TopicDay.topic_id, func.max(TopicDay.day).label("day"))
        .group_by(TopicDay.topic_id)
        .subquery()
    )
    rows = session.scalars(
        select(TopicDay)
        .join(latest, (latest.c.topic_id == TopicDay.topic_id) & (latest.c.day == TopicDay.day))
        .order_by(TopicDay.day.desc(), TopicDay.size.desc(), TopicDay.topic_id)
    )
    return [
        api.TopicSummary(
            id=r.topic_id,
            label=r.label,
            day=r.day.isoformat(),
            size=r.size,
            status=r.status,
            momentum=round(r.momentum, 4),
        )
        for r in rows
    ]
