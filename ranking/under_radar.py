"""Under the radar: strong papers the crowd missed (pure picking, and what it reads).

A paper's content-only expectation is the part of its trending score that comes neither from
votes nor from fame: its prior (text and metadata) plus its topic's momentum, in log-odds, as
the day's edition stored them (``day_scores.components``). A paper the crowd missed is one
Hugging Face did not feature within ``seen_days`` of its announcement. Each week, per topic, up
to ``per_topic`` missed papers are picked, best first, if their content-only expectation is in
the week's top ``1 - quantile``. ``benchmarks/under_the_radar.py`` measured the rule against
what happened later.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import DayScore, Edition, HfDailyPaper, Paper
from app.core.periods import span

CONTENT_PARTS = ("prior", "topic_momentum")


@dataclass(frozen=True, slots=True)
class RadarRule:
    per_topic: int = 2
    quantile: float = 0.95
    seen_days: int = 2


@dataclass(frozen=True, slots=True)
class Missed:
    """A paper of the week the crowd had not featured within the rule's days."""

    arxiv_id: str
    topic_id: int | None
    announced_on: date
    content: float  # its content-only expectation, log-odds


def content_only(components: dict[str, float]) -> float:
    return sum(float(components.get(part, 0.0)) for part in CONTENT_PARTS)


def pick(missed: Sequence[Missed], everyone: Sequence[float], rule: RadarRule) -> list[Missed]:
    """The week's picks: per topic, its best missed papers at or above the week's quantile of
    ``everyone``'s content-only expectations; best first, then by id."""
    if not missed or not everyone:
        return []
    ordered = sorted(everyone)
    threshold = ordered[int(rule.quantile * (len(ordered) - 1))]
    by_topic: dict[int, list[Missed]] = defaultdict(list)
    for paper in missed:
        if paper.topic_id is not None and paper.content >= threshold:
            by_topic[paper.topic_id].append(paper)
    chosen = [
        paper
        for papers in by_topic.values()
        for paper in sorted(papers, key=lambda p: (-p.content, p.arxiv_id))[: rule.per_topic]
    ]
    return sorted(chosen, key=lambda p: (-p.content, p.arxiv_id))


@dataclass(frozen=True, slots=True)
class WeekPicks:
    week: date
    picks: list[Missed]
    judged_until: date | None  # the last announcement day Hugging Face's records can judge


@dataclass(frozen=True, slots=True)
class WeekPool:
    """A week's papers as the picking reads them: the missed ones, every paper's content-only
    expectation, and the last announcement day Hugging Face's records can judge."""

    week: date
    missed: list[Missed]
    everyone: list[float]
    judged_until: date | None


def judged_until(session: Session, seen_days: int) -> date | None:
    """The last announcement day Hugging Face's stored records reach ``seen_days`` past."""
    newest_hf = session.scalar(select(func.max(HfDailyPaper.daily_date)))
    return None if newest_hf is None else newest_hf - timedelta(days=seen_days)


def week_pool(session: Session, day: date, seen_days: int) -> WeekPool:
    """``day``'s week from the stored day editions and Hugging Face's records."""
    monday = span("week", day).key
    judged = judged_until(session, seen_days)
    scored = _scored(session, monday)
    early = _seen_early(session, [row[0] for row in scored], seen_days)
    missed = [
        Missed(
            arxiv_id=arxiv_id,
            topic_id=topic_id,
            announced_on=announced,
            content=content_only(components),
        )
        for arxiv_id, topic_id, announced, components in scored
        if arxiv_id not in early and judged is not None and announced <= judged
    ]
    everyone = [content_only(components) for _, _, _, components in scored]
    return WeekPool(week=monday, missed=missed, everyone=everyone, judged_until=judged)


def week_picks(session: Session, day: date, rule: RadarRule | None = None) -> WeekPicks:
    """The picks of ``day``'s week."""
    chosen = rule or RadarRule()
    pool = week_pool(session, day, chosen.seen_days)
    return WeekPicks(pool.week, pick(pool.missed, pool.everyone, chosen), pool.judged_until)


def _scored(session: Session, monday: date) -> list[tuple[str, int | None, date, dict[str, float]]]:
    newest = (
        select(func.max(Edition.id))
        .where(Edition.period == "day", Edition.edition_date >= monday)
        .where(Edition.edition_date < monday + timedelta(days=7))
        .group_by(Edition.edition_date)
    )
    query = (
        select(DayScore.arxiv_id, DayScore.topic_id, Paper.announced_on, DayScore.components)
        .join(Paper, Paper.arxiv_id == DayScore.arxiv_id)
        .where(DayScore.edition_id.in_(newest), Paper.announced_on.is_not(None))
        .order_by(DayScore.arxiv_id)
    )
    return [
        (row.arxiv_id, row.topic_id, row.announced_on, json.loads(row.components))
        for row in session.execute(query)
    ]


def _seen_early(session: Session, ids: list[str], days: int) -> set[str]:
    """The papers Hugging Face featured within ``days`` of their announcement."""
    query = (
        select(HfDailyPaper.arxiv_id, HfDailyPaper.daily_date, Paper.announced_on)
        .join(Paper, Paper.arxiv_id == HfDailyPaper.arxiv_id)
        .where(HfDailyPaper.arxiv_id.in_(ids))
    )
    return {
        row.arxiv_id
        for row in session.execute(query)
        if row.announced_on is not None and (row.daily_date - row.announced_on).days <= days
    }
