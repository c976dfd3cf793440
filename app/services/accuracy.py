"""The public scorecard as a use case: every published day edition's chances against what
Hugging Face then featured, for the trending model that ranks today (reads; no commits).

The day pools are read from ``day_scores`` (every paper of the day with the chance it was
given), the outcome from ``hf_daily_papers``; the figures are :mod:`ranking.scorecard`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.explanations import helped, load_reasons
from app.core.models import DayScore, Edition, HfDailyPaper, Paper
from ranking.scorecard import Bin, Call, DayCall, DayOutcome, Scorecard, Skill, scorecard, skill
from ranking.trending.artifact import training_period

__all__ = ["Bin", "CalledPaper", "ModelRecord", "ScoredDay", "Skill", "model_record"]

# What Paperboy said about each paper shown, by (day, paper).
Said = dict[tuple[date, str], list[str]]
REASONS_SHOWN = 2


@dataclass(frozen=True)
class CalledPaper:
    """A paper of a scored day, with the chance it was given and what was said about it."""

    day: date
    arxiv_id: str
    title: str
    chance: float
    reasons: list[str]


@dataclass(frozen=True)
class ScoredDay:
    day: date
    skill: Skill
    in_training: bool


@dataclass(frozen=True)
class ModelRecord:
    """The serving model's record over the days it ranked."""

    model_id: str | None
    trained_from: date | None
    trained_until: date | None  # the first day the model never saw
    other_days: int  # days ranked by other model versions, left out
    overall: Skill | None
    after_training: Skill | None
    bins: list[Bin]  # the reliability bins
    weeks: list[tuple[date, Skill]]  # each week's Monday and its skill, oldest first
    days: list[ScoredDay]  # newest first
    hits: list[CalledPaper]
    missed: list[CalledPaper]
    overrated: list[CalledPaper]


def model_record(session: Session, model_path: Path | None) -> ModelRecord:
    """The record of the model that ranked the newest day edition (``model_path``: the
    serving model's file, which says the days it learned from)."""
    editions = _latest_day_editions(session)
    model_id = editions[-1].scorer_version if editions else None
    mine = [edition for edition in editions if edition.scorer_version == model_id]
    trained = _training_period(model_path, model_id)
    outcomes = _outcomes(session, mine)
    card = scorecard(outcomes)
    after = [o for o in outcomes if o.scored and (trained is None or o.day >= trained[1])]
    titles, reasons = _call_texts(session, mine, card)
    return ModelRecord(
        model_id=model_id,
        trained_from=trained[0] if trained else None,
        trained_until=trained[1] if trained else None,
        other_days=len(editions) - len(mine),
        overall=card.overall,
        after_training=skill(after) if trained else None,
        bins=card.bins,
        weeks=card.weeks,
        days=[
            ScoredDay(one.day, found, trained is not None and trained[0] <= one.day < trained[1])
            for one, found in card.days
        ],
        hits=[_called(one, titles, reasons) for one in card.hits],
        missed=[_called(one, titles, reasons) for one in card.missed],
        overrated=[_called(one, titles, reasons) for one in card.overrated],
    )


def _latest_day_editions(session: Session) -> list[Edition]:
    """Each day's newest day edition with chances, oldest day first."""
    newest = (
        select(Edition.edition_date, func.max(Edition.version).label("version"))
        .where(Edition.period == "day")
        .group_by(Edition.edition_date)
        .subquery()
    )
    return list(
        session.scalars(
            select(Edition)
            .join(
                newest,
                (Edition.edition_date == newest.c.edition_date)
                & (Edition.version == newest.c.version),
            )
            .where(Edition.period == "day")
            .order_by(Edition.edition_date)
        )
    )


def _training_period(model_path: Path | None, model_id: str | None) -> tuple[date, date] | None:
    """The days the serving model learned from, when it is the one that ranked the days."""
    said = training_period(model_path)
    if said is None or said.model_id != model_id:
        return None
    return said.trained_from, said.trained_until


def _outcomes(session: Session, editions: list[Edition]) -> list[DayOutcome]:
    days = {edition.id: edition.edition_date for edition in editions}
    featured = set(session.scalars(select(HfDailyPaper.arxiv_id).distinct()))
    calls: dict[int, list[Call]] = {number: [] for number in days}
    rows = session.execute(
        select(DayScore.edition_id, DayScore.arxiv_id, DayScore.chance).where(
            DayScore.edition_id.in_(list(days)), DayScore.chance.is_not(None)
        )
    )
    for edition_id, arxiv_id, chance in rows:
        if chance is not None:
            calls[edition_id].append(Call(arxiv_id, float(chance), arxiv_id in featured))
    return [DayOutcome(days[number], found) for number, found in calls.items() if found]


def _call_texts(
    session: Session, editions: list[Edition], card: Scorecard
) -> tuple[dict[str, str], Said]:
    shown = [*card.hits, *card.missed, *card.overrated]
    ids = sorted({one.call.arxiv_id for one in shown})
    query = select(Paper.arxiv_id, Paper.title).where(Paper.arxiv_id.in_(ids))
    titles: dict[str, str] = dict(session.execute(query).all())
    day_of = {edition.id: edition.edition_date for edition in editions}
    wanted = {(one.day, one.call.arxiv_id) for one in shown}
    days = {one.day for one in shown}
    rows = session.execute(
        select(DayScore.edition_id, DayScore.arxiv_id, DayScore.reasons).where(
            DayScore.edition_id.in_([e.id for e in editions if e.edition_date in days]),
            DayScore.arxiv_id.in_(ids),
        )
    )
    reasons: Said = {}
    for edition_id, arxiv_id, stored in rows:
        if (day_of[edition_id], arxiv_id) in wanted:
            raised = helped(load_reasons(stored), REASONS_SHOWN)
            reasons[(day_of[edition_id], arxiv_id)] = [reason.text for reason in raised]
    return titles, reasons


def _called(one: DayCall, titles: dict[str, str], reasons: Said) -> CalledPaper:
    return CalledPaper(
        day=one.day,
        arxiv_id=one.call.arxiv_id,
        title=titles.get(one.call.arxiv_id, one.call.arxiv_id),
        chance=one.call.chance,
        reasons=reasons.get((one.day, one.call.arxiv_id), []),
    )
