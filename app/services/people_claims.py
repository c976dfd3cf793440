"""What the split of names into people owes readers: per name, the verified claimant's person
and the papers arXiv's author feed lists for the claimant's ORCID iD; and the claims, follows
and corrections of a person that moved, which go where it went.

A claim counts here only once verified (``claim_verified_at``) and only through the papers
read from the feed (``orcid_papers``): a moderator's approval without an iD vouches for the
claimant, not for a list of papers, so such a name is split as before.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session, aliased

from app.core.models import OrcidPaper, Person, PersonCorrection, Subscriber

# arXiv's author feed may not list a paper announced the day it was read, or the day before.
FEED_LAG = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Listing:
    """A verified claimant's person, the papers the feed lists for them, and the day before
    which the feed lists every paper that is theirs (as far as arXiv knows)."""

    person: int
    papers: frozenset[str]
    complete_before: date


def verified_listings(session: Session, names: Sequence[str]) -> dict[str, Listing]:
    """Per name, the listing of its verified claimant (one at most: the partial unique index
    allows one verified claimant per person; of two people of one name both verified, the
    lower id's)."""
    found: dict[tuple[str, int], set[str]] = defaultdict(set)
    read: dict[tuple[str, int], datetime] = {}
    for key, person, arxiv_id, fetched_at in session.execute(
        select(Person.author_key, Person.id, OrcidPaper.arxiv_id, OrcidPaper.fetched_at)
        .join(Subscriber, Subscriber.claimed_person == Person.id)
        .join(OrcidPaper, OrcidPaper.orcid == Subscriber.orcid)
        .where(Person.author_key.in_(names), Subscriber.claim_verified_at.is_not(None))
    ):
        found[(key, person)].add(arxiv_id)
        read[(key, person)] = max(fetched_at, read.get((key, person), fetched_at))
    listings: dict[str, Listing] = {}
    for key, person in sorted(found):
        before = read[(key, person)].date() - FEED_LAG
        listings.setdefault(key, Listing(person, frozenset(found[(key, person)]), before))
    return listings


def follow_moves(session: Session, moved: dict[int, int]) -> None:
    """Readers who claimed, followed or corrected a person that moved do so where it went."""
    for person, to in moved.items():
        _move_claim(session, person, to)
        _move_corrections(session, person, to)
    rows = session.execute(select(Subscriber.id, Subscriber.followed_people)).all()
    for subscriber, followed in rows:
        if any(person in moved for person in followed or ()):
            kept = list(dict.fromkeys(moved.get(person, person) for person in followed))
            session.execute(
                update(Subscriber).where(Subscriber.id == subscriber).values(followed_people=kept)
            )


def _move_claim(session: Session, person: int, to: int) -> None:
    """Claims move with their person. A verified claim (and its hide) moves too, unless the
    person it moves to has a verified claimant: one a person (the split keeps verified people
    apart, so this is the rare case of a verified person left with no papers at all)."""
    verified = Subscriber.claim_verified_at.is_not(None)
    mine = update(Subscriber).where(Subscriber.claimed_person == person)
    session.execute(mine.where(~verified).values(claimed_person=to))
    if session.scalar(select(Subscriber.id).where(Subscriber.claimed_person == person)) is None:
        return
    taken = session.scalar(select(Subscriber.id).where(Subscriber.claimed_person == to, verified))
    if taken is not None:
        gone = {"claimed_person": None, "claim_verified_at": None, "claim_verified_by": None}
        session.execute(mine.values(**gone))
        return
    session.execute(mine.values(claimed_person=to))
    hidden, hidden_by = session.execute(
        select(Person.hidden, Person.hidden_by).where(Person.id == person)
    ).one()
    if hidden:
        session.execute(
            update(Person).where(Person.id == to).values(hidden=True, hidden_by=hidden_by)
        )


def _move_corrections(session: Session, person: int, to: int) -> None:
    """A reader's corrections go with the person, so they can still be taken back; one the
    reader also made of the person moved to stays there alone."""
    twin = aliased(PersonCorrection)
    also_there = (
        select(twin.id)
        .where(twin.person_id == to)
        .where(twin.subscriber_id == PersonCorrection.subscriber_id)
        .where(twin.arxiv_id == PersonCorrection.arxiv_id)
        .exists()
    )
    session.execute(
        delete(PersonCorrection).where(PersonCorrection.person_id == person, also_there)
    )
    session.execute(
        update(PersonCorrection).where(PersonCorrection.person_id == person).values(person_id=to)
    )
