"""A reader's "this paper is not by this person" on a person's page, and when it holds for all.

It hides the paper from that reader's view of the person at once. For everyone, it takes one
of (:func:`settled`): a moderator's approval; the person's **verified** claimant; or ``QUORUM``
people saying the same, counted as vote weighting counts voters: by mailbox
(:func:`accounts.addresses.mailbox`, so ``ada+1@`` and ``ada+2@`` are one), and only readers
whose mailbox was proven (a confirmed subscription or a first sign-in) at least
``ESTABLISHED_AFTER`` before they said it. A moderator's refusal outweighs all of these. Then
the next split of the name (``app.services.people``) gives the paper a person of its own.

A reader may take it back; the row stays, withdrawn, as a labelled example. Each reader makes
at most ``PER_DAY`` a day, so one account cannot take a person apart, and one taken back is
said again a day later at the soonest, so one account cannot have a name split again and
again. Storing a correction and counting the day's are one step (:func:`correct`), so a burst
of requests cannot all count the same room.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, func, select
from sqlalchemy.orm import Session

from accounts.addresses import mailbox
from app.core.models import PaperPerson, Person, PersonCorrection, SignInKey, Subscriber
from app.core.refusals import BadInput

# People who must agree before a correction changes everyone's page.
QUORUM = 3
PER_DAY = 20
# A mailbox counts toward the quorum once it was proven this long before the correction.
ESTABLISHED_AFTER = timedelta(days=7)
APPROVED = "approved"
REFUSED = "refused"


class CorrectionRefusedError(BadInput):
    """Too many corrections from one reader in a day."""


@dataclass(frozen=True, slots=True)
class Said:
    """One standing correction as the rule counts it."""

    mailbox: str
    proven_at: datetime | None
    said_at: datetime
    verified_claimant: bool
    moderation: str | None

    @property
    def established(self) -> bool:
        return self.proven_at is not None and self.proven_at <= self.said_at - ESTABLISHED_AFTER


def settled(said: Sequence[Said]) -> bool:
    """The rule (pure): a moderator's refusal never holds; an approval, the person's verified
    claimant, or ``QUORUM`` established mailboxes do."""
    if any(one.moderation == REFUSED for one in said):
        return False
    if any(one.moderation == APPROVED or one.verified_claimant for one in said):
        return True
    return len({one.mailbox for one in said if one.established}) >= QUORUM


def correct(
    session: Session, subscriber: Subscriber, person: Person, arxiv_id: str, now: datetime
) -> bool:
    """Say the paper is not the person's; True when that now holds for everyone.

    Saying it again changes nothing. The row is written before the day's rows are counted:
    on SQLite that write takes the database's one write lock, held to the end of the
    transaction, so the count sees every correction stored before and none after; on
    PostgreSQL the reader's advisory lock lets one of their corrections at a time through."""
    _lock_reader(session, subscriber.id)
    listed = session.get(PaperPerson, (arxiv_id, person.author_key))
    if listed is None or listed.person_id != person.id:
        raise LookupError(f"paper {arxiv_id} of person {person.id}")
    found = _row(session, subscriber.id, person.id, arxiv_id)
    if found is not None and found.withdrawn_at is None:
        return agreed(session, person.id, arxiv_id)
    if found is not None and found.withdrawn_at is not None:
        # Said, taken back and said again would split the name again each time, uncounted.
        if found.withdrawn_at > now - timedelta(days=1):
            raise CorrectionRefusedError("taken back in the last day: say it again tomorrow")
        found.created_at = now  # said again: counted as one of today's
        found.withdrawn_at = None
    if found is None:
        found = PersonCorrection(
            subscriber_id=subscriber.id,
            person_id=person.id,
            arxiv_id=arxiv_id,
            author_key=person.author_key,
            created_at=now,
        )
        session.add(found)
    session.flush()
    _check_rate(session, subscriber.id, now)
    return agreed(session, person.id, arxiv_id)


def withdraw(
    session: Session, subscriber: Subscriber, person_id: int, arxiv_id: str, now: datetime
) -> None:
    """Take one's correction back (kept, marked withdrawn)."""
    found = _row(session, subscriber.id, person_id, arxiv_id)
    if found is not None and found.withdrawn_at is None:
        found.withdrawn_at = now


def agreed(session: Session, person_id: int, arxiv_id: str) -> bool:
    """Whether the correction of this paper of this person holds for everyone."""
    where = and_(PersonCorrection.person_id == person_id, PersonCorrection.arxiv_id == arxiv_id)
    return settled(standing(session, where).get((person_id, arxiv_id), []))


def detached(session: Session, names: Sequence[str]) -> dict[str, frozenset[str]]:
    """Per name, the papers whose correction holds for everyone (the split's input)."""
    keys = dict(
        session.execute(
            select(PersonCorrection.person_id, PersonCorrection.author_key)
            .where(PersonCorrection.author_key.in_(names))
            .distinct()
        ).all()
    )
    found: dict[str, set[str]] = defaultdict(set)
    rows = standing(session, PersonCorrection.author_key.in_(names))
    for (person, arxiv_id), said in rows.items():
        if settled(said):
            found[keys[person]].add(arxiv_id)
    return {key: frozenset(ids) for key, ids in found.items()}


def standing(session: Session, where: ColumnElement[bool]) -> dict[tuple[int, str], list[Said]]:
    """The standing corrections matching ``where``, by (person, paper), as the rule counts
    them: each reader's mailbox, its earliest proof, and whether they are the person's
    verified claimant."""
    rows = session.execute(
        select(
            PersonCorrection.person_id,
            PersonCorrection.arxiv_id,
            PersonCorrection.created_at,
            PersonCorrection.moderation,
            Subscriber.email_key,
            Subscriber.confirmed_at,
            SignInKey.signed_in_at,
            Subscriber.claimed_person,
            Subscriber.claim_verified_at,
        )
        .join(Subscriber, Subscriber.id == PersonCorrection.subscriber_id)
        .outerjoin(SignInKey, SignInKey.email_key == Subscriber.email_key)
        .where(where, PersonCorrection.withdrawn_at.is_(None))
    )
    found: dict[tuple[int, str], list[Said]] = defaultdict(list)
    for row in rows:
        proofs = [at for at in (row.confirmed_at, row.signed_in_at) if at is not None]
        found[(row.person_id, row.arxiv_id)].append(
            Said(
                mailbox=mailbox(row.email_key),
                proven_at=min(proofs, default=None),
                said_at=row.created_at,
                verified_claimant=row.claimed_person == row.person_id
                and row.claim_verified_at is not None,
                moderation=row.moderation,
            )
        )
    return found


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


def moderate(
    session: Session, person_id: int, arxiv_id: str, decision: str
) -> Iterable[PersonCorrection]:
    """Mark every standing correction of this paper of this person with a moderator's
    ``decision``; the rows marked (one a reader, each told in their decisions)."""
    rows = session.scalars(
        select(PersonCorrection).where(
            PersonCorrection.person_id == person_id,
            PersonCorrection.arxiv_id == arxiv_id,
            PersonCorrection.withdrawn_at.is_(None),
        )
    ).all()
    if not rows:
        raise LookupError(f"standing correction of paper {arxiv_id} of person {person_id}")
    for row in rows:
        row.moderation = decision
    return rows


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


def _lock_reader(session: Session, subscriber_id: int) -> None:
    """PostgreSQL: one of a reader's corrections at a time, until its transaction ends."""
    if session.get_bind().dialect.name == "postgresql":
        key = f"corrections:{subscriber_id}"
        session.execute(select(func.pg_advisory_xact_lock(func.hashtext(key))))


def _check_rate(session: Session, subscriber_id: int, now: datetime) -> None:
    """Refuse the correction just written when it is over the day's limit (its caller's
    transaction rolls it back)."""
    made = session.scalar(
        select(func.count())
        .select_from(PersonCorrection)
        .where(
            PersonCorrection.subscriber_id == subscriber_id,
            PersonCorrection.created_at > now - timedelta(days=1),
        )
    )
    if (made or 0) > PER_DAY:
        raise CorrectionRefusedError(f"at most {PER_DAY} corrections a day; try again tomorrow")
