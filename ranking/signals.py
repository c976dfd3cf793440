"""Community signals as the ranker reads them: Hugging Face upvotes and votes cast on Paperboy.

The one place that reads them (votes are cast in ``accounts.votes``; the ranker only
counts them, per paper and day voted, so an edition sees only what was known by its day).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import HfDailyPaper, SignInKey, Subscriber, Vote
from ranking.embeddings import PAGE_SIZE
from ranking.scoring import Signal
from ranking.vote_weights import Ballot, weigh


def load_signals(session: Session, arxiv_ids: Sequence[str], day: date) -> list[Signal]:
    """The community signals of these papers up to ``day``: Hugging Face upvotes on daily pages
    (as last fetched) and votes on Paperboy, weighed, per day voted.

    New upvotes or votes change the scores, and so make the next build of the edition a new
    version.
    """
    found: list[Signal] = []
    for start in range(0, len(arxiv_ids), PAGE_SIZE):
        page = arxiv_ids[start : start + PAGE_SIZE]
        rows = session.execute(
            select(HfDailyPaper.arxiv_id, HfDailyPaper.upvotes, HfDailyPaper.daily_date)
            .where(HfDailyPaper.arxiv_id.in_(page))
            .where(HfDailyPaper.daily_date <= day)
            .order_by(HfDailyPaper.daily_date, HfDailyPaper.arxiv_id)
        )
        found += [
            Signal(
                arxiv_id=r.arxiv_id,
                source="hf_upvotes",
                value=float(r.upvotes),
                observed_on=r.daily_date,
            )
            for r in rows
        ]
        votes = sorted(votes_by_day(session, page, day).items())
        found += [
            Signal(
                arxiv_id=arxiv_id, source="paperboy_votes", value=float(count), observed_on=voted_on
            )
            for (arxiv_id, voted_on), count in votes
        ]
    return found


def votes_by_day(
    session: Session, arxiv_ids: Sequence[str], last: date
) -> dict[tuple[str, date], float]:
    """Votes per (paper, day voted) for these papers on days up to ``last``, each weighed as
    :mod:`ranking.vote_weights` says (new voters and one domain's voters count for little)."""
    ballots = _ballots(session, arxiv_ids, last)
    counted: dict[tuple[str, date], float] = defaultdict(float)
    for ballot, weight in zip(ballots, weigh(ballots), strict=True):
        if weight > 0:
            counted[ballot.arxiv_id, ballot.voted_on] += weight
    return dict(counted)


def _ballots(session: Session, arxiv_ids: Sequence[str], last: date) -> list[Ballot]:
    """Each vote with its voter's earliest proof of the mailbox: a confirmed subscription or a
    first sign-in."""
    rows = session.execute(
        select(
            Vote.voter,
            Vote.arxiv_id,
            Vote.voted_on,
            Vote.created_at,
            SignInKey.signed_in_at,
            Subscriber.confirmed_at,
        )
        .outerjoin(SignInKey, SignInKey.email_key == Vote.voter)
        .outerjoin(Subscriber, Subscriber.email_key == Vote.voter)
        .where(Vote.arxiv_id.in_(arxiv_ids), Vote.voted_on <= last)
        .order_by(Vote.arxiv_id, Vote.created_at, Vote.voter)
    )
    return [
        Ballot(
            voter=row.voter,
            arxiv_id=row.arxiv_id,
            voted_on=row.voted_on,
            cast_at=row.created_at,
            proven_at=min((at for at in (row.signed_in_at, row.confirmed_at) if at), default=None),
        )
        for row in rows
    ]
