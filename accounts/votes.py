"""Votes: a signed-in person's upvote on a paper, once per paper, counted per paper and day.

Cast and taken back from the web app; the ranker weighs them itself (``ranking.signals``,
``ranking.vote_weights``: a new voter's or one mail domain's votes count for little).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.core.models import Paper, Vote
from app.core.refusals import NotFound


class UnknownPaperError(NotFound, LookupError):
    """A vote, a save or a note for a paper Paperboy does not hold."""


def cast(session: Session, voter: str, arxiv_id: str, now: datetime) -> int:
    """Upvote once (a repeat changes nothing); returns the paper's vote count."""
    if session.get(Paper, arxiv_id) is None:
        raise UnknownPaperError(arxiv_id)
    if session.get(Vote, (voter, arxiv_id)) is None:
        session.add(Vote(voter=voter, arxiv_id=arxiv_id, voted_on=now.date(), created_at=now))
        session.flush()
    return total(session, arxiv_id)


def retract(session: Session, voter: str, arxiv_id: str) -> int:
    session.execute(delete(Vote).where(Vote.voter == voter, Vote.arxiv_id == arxiv_id))
    return total(session, arxiv_id)


def total(session: Session, arxiv_id: str) -> int:
    return totals(session, [arxiv_id]).get(arxiv_id, 0)


def totals(session: Session, arxiv_ids: Sequence[str]) -> dict[str, int]:
    """Each paper's vote count, for the papers that have any."""
    rows = session.execute(
        select(Vote.arxiv_id, func.count())
        .where(Vote.arxiv_id.in_(arxiv_ids))
        .group_by(Vote.arxiv_id)
    )
    return {arxiv_id: int(count) for arxiv_id, count in rows}
