"""A reader's "this paper is not by this person" on a person's page.

It hides the paper from that reader's view of the person at once. For everyone, it takes the
person's claimant, or ``QUORUM`` readers saying the same: then the next split of the name
(``app.services.people``) gives the paper a person of its own. A reader may take it back;
the row stays, withdrawn, as a labelled example. Each reader makes at most ``PER_DAY`` a day,
so one account cannot take a person apart, and one taken back is said again a day later at the
soonest, so one account cannot have a name split again and again.
"""

from __future__ import annotations

from collections.abc import Set
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import PaperPerson, Person, PersonCorrection, Subscriber
from app.core.refusals import BadInput

# Readers who must agree before a correction changes everyone's page.
QUORUM = 3
PER_DAY = 20


class CorrectionRefusedError(BadInput):
    """Too many corrections from one reader in a day."""


def correct(
    session: Session, subscriber: Subscriber, person: Person, arxiv_id: str, now: datetime
) -> bool:
    """Say the paper is not the person's; True when that now holds for everyone."""
    listed = session.get(PaperPerson, (arxiv_id, person.author_key))
    if listed is None or listed.person_id != person.id:
        raise LookupError(f"paper {arxiv_id} of person {person.id}")
    found = _row(session, subscriber.id, person.id, arxiv_id)
    if found is not None and found.withdrawn_at is not None:
        # Said, taken back and said again would split the name again each time, uncounted.
        if found.withdrawn_at > now - timedelta(days=1):
            raise CorrectionRefusedError("taken back in the last day: say it again tomorrow")
        _check_rate(session, subscriber.id, now)
        found.created_at = now  # said again: counted as one of today's
    if found is None:
        _check_rate(session, subscriber.id, now)
        found = PersonCorrection(
            subscriber_id=subscriber.id,
            person_id=person.id,
            arxiv_id=arxiv_id,
            author_key=person.author_key,
            created_at=now,
        )
        session.add(found)
    found.withdrawn_at = None
    session.flush()
    return agreed(session, person.id, arxiv_id)


def withdraw(
    session: Session, subscriber: Subscriber, person_id: int, arxiv_id: str, now: datetime
) -> None:
    """Take one's correction back (kept, marked withdrawn)."""
    found = _row(session, subscriber.id, person_id, arxiv_id)
    if found is not None and found.withdrawn_at is None:
        found.withdrawn_at = now


def agreed(session: Session, person_id: int, arxiv_id: str) -> bool:
    """Whether the person's claimant, or ``QUORUM`` readers, say the paper is not theirs."""
    readers = session.scalars(
        select(PersonCorrection.subscriber_id).where(
            PersonCorrection.person_id == person_id,
            PersonCorrection.arxiv_id == arxiv_id,
            PersonCorrection.withdrawn_at.is_(None),
        )
    )
    claimants = session.scalars(select(Subscriber.id).where(Subscriber.claimed_person == person_id))
    return settled(set(readers), set(claimants))


def settled(readers: Set[int], claimants: Set[int]) -> bool:
    """The rule: ``QUORUM`` readers, or one of the person's claimants, said it."""
    return len(readers) >= QUORUM or not readers.isdisjoint(claimants)


def own(session: Session, subscriber_id: int, person_id: int) -> set[str]:
    """The papers this reader said are not the person's (standing ones)."""
    return set(
        session.scalars(
            select(PersonCorrection.arxiv_id).where(
                PersonCorrection.subscriber_id == subscriber_id,
                PersonCorrection.person_id == person_id,
                PersonCorrection.withdrawn_at.is_(None),
            )
        )
    )


def _row(
    session: Session, subscriber_id: int, person_id: int, arxiv_id: str
) -> PersonCorrection | None:
    return session.scalar(
        select(PersonCorrection).where(
            PersonCorrection.subscriber_id == subscriber_id,
            PersonCorrection.person_id == person_id,
            PersonCorrection.arxiv_id == arxiv_id,
        )
    )


def _check_rate(session: Session, subscriber_id: int, now: datetime) -> None:
    made = session.scalar(
        select(func.count())
        .select_from(PersonCorrection)
        .where(
            PersonCorrection.subscriber_id == subscriber_id,
            PersonCorrection.created_at > now - timedelta(days=1),
        )
    )
    if (made or 0) >= PER_DAY:
        raise CorrectionRefusedError(f"at most {PER_DAY} corrections a day; try again tomorrow")
