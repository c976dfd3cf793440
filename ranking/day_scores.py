"""Every paper of a day, as its day edition's scorer ranked it (``day_scores``).

Stored with each new version of a day edition (the version before loses its rows: only the
newest version's whole day is read), and for an edition published before they were kept when
its day is ranked again; read by the digest, which chooses from the whole day.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.core.explanations import dump_reasons
from app.core.models import DayScore

if TYPE_CHECKING:
    from ranking.editions import Item


def has_day_scores(session: Session, edition_id: int) -> bool:
    found = session.scalar(select(DayScore.rank).where(DayScore.edition_id == edition_id).limit(1))
    return found is not None


def store_day_scores(session: Session, edition_id: int, ranking: list[Item]) -> None:
    session.add_all(
        DayScore(
            edition_id=edition_id,
            arxiv_id=item.arxiv_id,
            rank=rank,
            score=item.score,
            components=json.dumps(item.components, sort_keys=True),
            topic_id=item.topic_id,
            chance=item.chance,
            reasons=dump_reasons(item.reasons),
        )
        for rank, item in enumerate(ranking, start=1)
    )
    session.flush()


def forget_day_scores(session: Session, edition_id: int) -> None:
    session.execute(delete(DayScore).where(DayScore.edition_id == edition_id))
