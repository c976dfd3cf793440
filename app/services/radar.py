"""What the radar's pages read of the ranking: the emerging-topic radar's weeks, the
under-the-radar picks and the trending model's scorecard.

A week the radar cannot read (its weeks would start before the year 1) is refused as
:class:`BadInput`, as any request naming it is.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from app.core.refusals import BadInput
from ranking import radar_window
from ranking.errors import RankingInputError
from ranking.radar_window import RadarParams
from ranking.scorecard import Bin, Call, DayCall, DayOutcome, Scorecard, Skill, scorecard, skill
from ranking.trending.artifact import training_period
from ranking.under_radar import RadarRule, judged_until, week_picks

__all__ = [
    "Bin",
    "Call",
    "DayCall",
    "DayOutcome",
    "RadarParams",
    "RadarRule",
    "Scorecard",
    "Skill",
    "judged_until",
    "scorecard",
    "skill",
    "training_period",
    "week_picks",
]


def window_start(week: date, params: RadarParams) -> date:
    """The Monday of the oldest week a radar for ``week`` reads."""
    try:
        return radar_window.window_start(week, params)
    except RankingInputError as error:
        raise BadInput(str(error)) from None


def too_short(session: Session, week: date, params: RadarParams, model: str) -> str | None:
    """Why the store cannot give a radar for ``week`` a baseline, or None when it can."""
    try:
        return radar_window.too_short(session, week, params, model)
    except RankingInputError as error:
        raise BadInput(str(error)) from None
