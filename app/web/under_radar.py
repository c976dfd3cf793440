"""The under-the-radar page: each week's strong papers the crowd missed
(``ranking.under_radar``), with their titles, topics and content-only chance."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import Edition, Paper
from app.core.topic_labels import topic_labels
from app.services.radar import RadarRule, judged_until, week_picks


@dataclass(frozen=True, slots=True)
class UnderRadarPick:
    arxiv_id: str
    title: str
    announced_on: date
    chance: float  # from its content alone: no votes, no fame
    topic_id: int | None
    topic_label: str | None


@dataclass(frozen=True, slots=True)
class UnderRadarPage:
    week: date | None
    picks: list[UnderRadarPick]
    judged_until: date | None
    rule: RadarRule
    judged_whole: bool  # Hugging Face's records reach past every day of the week


def under_radar_page(session: Session, week: date | None) -> UnderRadarPage:
    """``week``'s picks (a Monday; None: the week of the newest judged announcement day)."""
    rule = RadarRule()
    day = week or _newest_judged(session, rule)
    if day is None:
        return UnderRadarPage(week=None, picks=[], judged_until=None, rule=rule, judged_whole=False)
    found = week_picks(session, day, rule)
    wanted = select(Paper.arxiv_id, Paper.title).where(
        Paper.arxiv_id.in_([p.arxiv_id for p in found.picks])
    )
    titles = {row.arxiv_id: row.title for row in session.execute(wanted)}
    labels = topic_labels(session, {p.topic_id for p in found.picks if p.topic_id is not None})
    picks = [
        UnderRadarPick(
            arxiv_id=p.arxiv_id,
            title=titles.get(p.arxiv_id, p.arxiv_id),
            announced_on=p.announced_on,
            chance=1.0 / (1.0 + math.exp(-p.content)),
            topic_id=p.topic_id,
            topic_label=None if p.topic_id is None else labels.get(p.topic_id),
        )
        for p in found.picks
    ]
    judged = found.judged_until
    return UnderRadarPage(
        week=found.week,
        picks=picks,
        judged_until=judged,
        rule=rule,
        judged_whole=judged is not None and judged >= found.week + timedelta(days=6),
    )


def _newest_judged(session: Session, rule: RadarRule) -> date | None:
    """The newest announcement day with a day edition that Hugging Face's records can judge."""
    limit = judged_until(session, rule.seen_days)
    if limit is None:
        return None
    query = select(func.max(Edition.edition_date)).where(
        Edition.period == "day", Edition.edition_date <= limit
    )
    return session.scalar(query)


@dataclass(frozen=True, slots=True)
class RadarSlot:
    """The labelled under-the-radar slot of a reader's "For you": a few of the newest judged
    week's picks, from the topics they follow first."""

    week: date | None = None
    picks: list[UnderRadarPick] = field(default_factory=list)
    followed: frozenset[int] = frozenset()  # the topics among the picks the reader follows


SLOT_SIZE = 3


def for_reader(
    picks: Sequence[UnderRadarPick],
    followed: Collection[int],
    muted: Collection[int],
    shown: Collection[str],
) -> list[UnderRadarPick]:
    """A reader's share of the week's picks: none of a muted topic or already among their
    cards; those of followed topics first, each part best first."""
    kept = [p for p in picks if p.topic_id not in muted and p.arxiv_id not in shown]
    mine = [p for p in kept if p.topic_id in followed]
    return (mine + [p for p in kept if p.topic_id not in followed])[:SLOT_SIZE]


def reader_slot(
    page: UnderRadarPage, followed: Sequence[int], muted: Sequence[int], shown: Collection[str]
) -> RadarSlot:
    """The slot of a reader who follows and mutes these topics, from the newest judged week's
    page, leaving out the papers ``shown`` among their cards."""
    mine = set(followed)
    picks = for_reader(page.picks, mine, set(muted), shown)
    topics = frozenset(p.topic_id for p in picks if p.topic_id is not None and p.topic_id in mine)
    return RadarSlot(week=page.week, picks=picks, followed=topics)
