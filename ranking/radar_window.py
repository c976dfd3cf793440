"""The weeks an emerging-topic radar reads, and whether the store reaches back over them.

Kept apart from :mod:`ranking.radar` (which clusters, with scikit-learn) so that the web
pages can say what the radar reads without importing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import Paper, PaperEmbedding
from ranking.errors import RankingInputError


@dataclass(frozen=True, slots=True)
class RadarParams:
    baseline_weeks: int = 8
    recent_weeks: int = 4
    ratio: float = 1.5
    min_papers: int = 10
    spike_weight: float = 1.0
    size: int = 20
    flagged: int = 10

    @property
    def weeks(self) -> int:
        """The weeks a radar reads, the flagged week last."""
        return self.baseline_weeks + self.recent_weeks


def monday(day: date) -> date:
    """The first day of ``day``'s week: a radar's weeks run Monday to Sunday."""
    return day - timedelta(days=day.weekday())


def window_start(week: date, params: RadarParams) -> date:
    """The Monday of the oldest week a radar for ``week`` reads."""
    try:
        return monday(week) - timedelta(weeks=params.weeks - 1)
    except OverflowError:
        raise RankingInputError(
            f"the radar reads {params.weeks} weeks up to the week of {week}, which would start "
            f"before the year 1"
        ) from None


def too_short(session: Session, week: date, params: RadarParams, model: str) -> str | None:
    """Why the store cannot give a radar for ``week`` a baseline, or None when it can: the
    papers with a vector under ``model`` (the radar reads no other) must reach back over its
    weeks."""
    first = window_start(week, params)
    embedded = (
        select(func.min(Paper.announced_on), func.max(Paper.announced_on))
        .join(PaperEmbedding, PaperEmbedding.arxiv_id == Paper.arxiv_id)
        .where(PaperEmbedding.model == model)
    )
    earliest, latest = session.execute(embedded).one()
    if earliest is None or earliest > first + timedelta(days=6):
        held = (
            "no embedded papers"
            if earliest is None
            else f"embedded papers from {earliest} to {latest}"
        )
        return (
            f"the radar compares {params.recent_weeks} recent weeks with the "
            f"{params.baseline_weeks} before them, from {first}; this site holds {held}"
        )
    return None
