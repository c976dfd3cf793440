"""The radar's pages as use cases: a week's emerging-topic flags (stored by the daily job,
``ranking.emerging``) and a week's strong papers the crowd missed (``ranking.under_radar``),
each read with the request's session, with their papers' titles and topics.

A week the radar cannot read (its weeks would start before the year 1) is refused as
:class:`BadInput`, as any request naming it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.explanations import content_chance_words
from app.core.models import Edition, EmergingTopic, Paper
from app.core.reads import topic_labels
from app.core.refusals import BadInput
from ranking import radar_window
from ranking.errors import RankingInputError
from ranking.radar_window import RadarParams
from ranking.under_radar import RadarRule, judged_until, week_picks

__all__ = [
    "EmergingFlag",
    "EmergingWeek",
    "PaperLink",
    "RadarParams",
    "RadarRule",
    "UnderRadarPick",
    "UnderRadarWeek",
    "emerging_week",
    "flagged_weeks",
    "outcomes_known_until",
    "under_radar_week",
]


@dataclass(frozen=True, slots=True)
class PaperLink:
    arxiv_id: str
    title: str
    announced_on: date | None


@dataclass(frozen=True, slots=True)
class EmergingFlag:
    """A subject the radar flagged, with its papers named and its topic labelled."""

    position: int
    label: str
    new_phrases: list[str]
    weekly_papers: list[tuple[date, int]]  # each week's Monday and its papers, oldest first
    baseline_share: float
    recent_share: float
    week_share: float
    founding: list[PaperLink]
    first: PaperLink
    topic_id: int | None
    topic_label: str | None
    computed_at: datetime


@dataclass(frozen=True, slots=True)
class EmergingWeek:
    week: date | None  # the Monday of the week shown
    weeks: list[date]  # every week with flags, newest first
    flags: list[EmergingFlag]
    too_short: str | None  # why there are no flags, when there are none
    params: RadarParams
    short_history: bool = False  # the store does not reach back over the radar's weeks


def flagged_weeks(session: Session) -> list[date]:
    """Every week with flags, newest first."""
    return list(
        session.scalars(select(EmergingTopic.week).distinct().order_by(EmergingTopic.week.desc()))
    )


def emerging_week(session: Session, week: date | None, model: str) -> EmergingWeek:
    """The flags of ``week`` (a Monday; None: the newest week with flags)."""
    params = RadarParams()
    weeks = flagged_weeks(session)
    shown = week if week is not None else (weeks[0] if weeks else None)
    rows = [] if shown is None else _flag_rows(session, shown)
    short = None if rows else _short_history(session, shown, params, model)
    return EmergingWeek(
        week=shown,
        weeks=weeks,
        flags=_flags(session, rows, params),
        too_short=short or (None if rows else _why_none(session, shown)),
        params=params,
        short_history=short is not None,
    )


def _short_history(
    session: Session, week: date | None, params: RadarParams, model: str
) -> str | None:
    """Why the store cannot give the radar its baseline for ``week``, or None when it can."""
    latest = session.scalar(select(func.max(Paper.announced_on)))
    if latest is None:
        return None
    try:
        return radar_window.too_short(session, week or latest, params, model)
    except RankingInputError as error:
        raise BadInput(str(error)) from None


def _why_none(session: Session, week: date | None) -> str:
    if session.scalar(select(func.max(Paper.announced_on))) is None:
        return "this site holds no papers yet"
    if week is None:
        return "the radar has flagged no week yet; the daily job runs it with each publication"
    return (
        "no subject was flagged for this week: none rose enough, or the radar has not run for "
        "it (the daily job runs it for the week of each day it publishes)"
    )


def _flag_rows(session: Session, week: date) -> list[EmergingTopic]:
    query = select(EmergingTopic).where(EmergingTopic.week == week)
    return list(session.scalars(query.order_by(EmergingTopic.position)))


def _flags(session: Session, rows: list[EmergingTopic], params: RadarParams) -> list[EmergingFlag]:
    wanted = {i for row in rows for i in [*row.founding, row.first_paper]}
    papers = {
        p.arxiv_id: PaperLink(p.arxiv_id, p.title, p.announced_on)
        for p in session.execute(
            select(Paper.arxiv_id, Paper.title, Paper.announced_on).where(
                Paper.arxiv_id.in_(wanted)
            )
        )
    }
    labels = topic_labels(session, {row.topic_id for row in rows if row.topic_id is not None})
    return [
        EmergingFlag(
            position=row.position,
            label=row.label,
            new_phrases=list(row.new_phrases),
            weekly_papers=_weekly(row, params),
            baseline_share=row.baseline_share,
            recent_share=row.recent_share,
            week_share=row.week_share,
            founding=[papers[i] for i in row.founding if i in papers],
            first=papers.get(row.first_paper, PaperLink(row.first_paper, row.first_paper, None)),
            topic_id=row.topic_id,
            topic_label=labels.get(row.topic_id) if row.topic_id is not None else None,
            computed_at=row.computed_at,
        )
        for row in rows
    ]


def _weekly(row: EmergingTopic, params: RadarParams) -> list[tuple[date, int]]:
    try:
        first = radar_window.window_start(row.week, params)
    except RankingInputError as error:
        raise BadInput(str(error)) from None
    return [(first + timedelta(weeks=n), papers) for n, papers in enumerate(row.weekly_papers)]


@dataclass(frozen=True, slots=True)
class UnderRadarPick:
    arxiv_id: str
    title: str
    announced_on: date
    chance: float  # from its content alone: no votes, no fame
    topic_id: int | None
    topic_label: str | None

    @property
    def chance_words(self) -> str:
        """Named as content-only: the model's chance on a card also weighs authors and votes."""
        return content_chance_words(self.chance)


@dataclass(frozen=True, slots=True)
class UnderRadarWeek:
    week: date | None
    picks: list[UnderRadarPick]
    judged_until: date | None
    rule: RadarRule
    judged_whole: bool  # Hugging Face's records reach past every day of the week
    days_before: int = 0  # announcement days stored before the week: its topics' history


def under_radar_week(session: Session, week: date | None) -> UnderRadarWeek:
    """``week``'s picks (a Monday; None: the week of the newest judged announcement day)."""
    rule = RadarRule()
    day = week or _newest_judged(session, rule)
    if day is None:
        return UnderRadarWeek(week=None, picks=[], judged_until=None, rule=rule, judged_whole=False)
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
    return UnderRadarWeek(
        week=found.week,
        picks=picks,
        judged_until=judged,
        rule=rule,
        judged_whole=judged is not None and judged >= found.week + timedelta(days=6),
        days_before=_days_before(session, found.week),
    )


# Far more than any topic window: the count only needs to tell a short history from a long one.
DAYS_LOOKED_BACK = 28


def _days_before(session: Session, monday: date) -> int:
    """The announcement days stored before ``monday`` (at most :data:`DAYS_LOOKED_BACK`): what
    a pick's topic momentum (its topic's papers against the days before) can reach back over."""
    days = (
        select(Paper.announced_on)
        .where(Paper.announced_on < monday)
        .distinct()
        .order_by(Paper.announced_on.desc())
        .limit(DAYS_LOOKED_BACK)
        .subquery()
    )
    return session.scalar(select(func.count()).select_from(days)) or 0


def _newest_judged(session: Session, rule: RadarRule) -> date | None:
    """The newest announcement day with a day edition that Hugging Face's records can judge."""
    limit = judged_until(session, rule.seen_days)
    if limit is None:
        return None
    query = select(func.max(Edition.edition_date)).where(
        Edition.period == "day", Edition.edition_date <= limit
    )
    return session.scalar(query)


def outcomes_known_until(session: Session) -> date | None:
    """The last announcement day whose outcome on Hugging Face is known: its records reach
    the radar's days past it, so a paper of that day not featured by then was passed over."""
    return judged_until(session, RadarRule().seen_days)
