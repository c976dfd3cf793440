"""The emerging-topic radar's page: what a week's flags say, read from ``emerging_topics``.

The flags are stored by the daily job (``ranking.emerging``); the page only reads them, with
their papers' titles and the topic a reader can follow. A week with no flags says why: the
store does not reach back over the radar's weeks, or no subject burst.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import EmergingTopic, Paper
from app.core.topic_labels import topic_labels
from app.services.radar import RadarParams, too_short, window_start

BAR_WIDTH = 12
BAR_HEIGHT = 40


@dataclass(frozen=True, slots=True)
class PaperLink:
    arxiv_id: str
    title: str
    announced_on: date | None


@dataclass(frozen=True, slots=True)
class Bar:
    week: date
    papers: int
    x: int
    height: float


@dataclass(frozen=True, slots=True)
class EmergingCard:
    position: int
    label: str
    new_phrases: list[str]
    bars: list[Bar]  # papers per week, oldest first
    baseline_share: float
    recent_share: float
    week_share: float
    founding: list[PaperLink]
    first: PaperLink
    topic_id: int | None
    topic_label: str | None
    computed_at: datetime

    @property
    def rise(self) -> float:
        """How many times its baseline share the recent weeks' share is."""
        return self.recent_share / self.baseline_share if self.baseline_share else float("inf")


@dataclass(frozen=True, slots=True)
class EmergingPage:
    week: date | None  # the Monday of the week shown
    weeks: list[date]  # every week with flags, newest first
    cards: list[EmergingCard]
    too_short: str | None
    params: RadarParams
    bar_width: int = BAR_WIDTH
    bar_height: int = BAR_HEIGHT


def flagged_weeks(session: Session) -> list[date]:
    return list(
        session.scalars(select(EmergingTopic.week).distinct().order_by(EmergingTopic.week.desc()))
    )


def emerging_page(session: Session, week: date | None, model: str) -> EmergingPage:
    """The flags of ``week`` (a Monday; None: the newest week with flags)."""
    params = RadarParams()
    weeks = flagged_weeks(session)
    shown = week if week is not None else (weeks[0] if weeks else None)
    rows = [] if shown is None else _rows(session, shown)
    reason = None if rows else _why_none(session, shown, params, model)
    return EmergingPage(
        week=shown,
        weeks=weeks,
        cards=_cards(session, rows, params),
        too_short=reason,
        params=params,
    )


def _why_none(session: Session, week: date | None, params: RadarParams, model: str) -> str:
    latest = session.scalar(select(func.max(Paper.announced_on)))
    if latest is None:
        return "this site holds no papers yet"
    short = too_short(session, week or latest, params, model)
    if short is not None:
        return short
    if week is None:
        return "the radar has flagged no week yet; the daily job runs it with each publication"
    return (
        "no subject was flagged for this week: none rose enough, or the radar has not run for "
        "it (the daily job runs it for the week of each day it publishes)"
    )


def _rows(session: Session, week: date) -> list[EmergingTopic]:
    query = select(EmergingTopic).where(EmergingTopic.week == week)
    return list(session.scalars(query.order_by(EmergingTopic.position)))


def _cards(session: Session, rows: list[EmergingTopic], params: RadarParams) -> list[EmergingCard]:
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
        EmergingCard(
            position=row.position,
            label=row.label,
            new_phrases=list(row.new_phrases),
            bars=_bars(row, params),
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


def _bars(row: EmergingTopic, params: RadarParams) -> list[Bar]:
    first = window_start(row.week, params)
    tallest = max([*row.weekly_papers, 1])
    return [
        Bar(
            week=first + timedelta(weeks=n),
            papers=papers,
            x=n * BAR_WIDTH,
            height=round(BAR_HEIGHT * papers / tallest, 1),
        )
        for n, papers in enumerate(row.weekly_papers)
    ]
