"""Claims of people, and what a claim may change for everyone.

Any number of readers may say "This is me" of a person. A claim shapes that reader's own view
and likes (:func:`accounts.reader.claim`) and nothing public until it is **verified**: arXiv's
author feed for the reader's ORCID iD lists at least one of the person's papers (the reader
proved the iD by signing in with ORCID), or a moderator approved it. One claim of a person may
be verified (a partial unique index); it outranks every unverified one. Only the verified
claimant, or a moderator, may hide the person's page; ``people.hidden_by`` names who did, and
the page stays hidden until they (or a moderator) show it again, or the claimant lets the
claim go. A moderator decides with a reason, kept in the audit log for the claimant to read
(:mod:`accounts.moderation`), and what a moderator decided (hidden, or shown again: then
``hidden_by`` names them on a shown page) only a moderator changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import ColumnElement, String, cast, select
from sqlalchemy.orm import Session

from accounts import moderation, reader
from accounts.moderation import HIDDEN, Verdict, is_moderator
from app.core.models import OrcidPaper, PaperPerson, Person, Subscriber
from app.core.refusals import Conflict, Refused

BY_ARXIV = "arxiv:"
BY_MODERATOR = "moderator:"
BY_READER = "reader:"


class NotClaimantError(Refused):
    """Only the person's verified claimant, or a moderator, may hide or show their page."""


class ClaimTakenError(Conflict):
    """Another reader's claim of this person is verified already: one verified claimant."""


class Verification(StrEnum):
    """What a check of a claim against arXiv found."""

    VERIFIED = "verified"  # the feed lists the person's papers: the claim is verified
    NOT_LISTED = "not-listed"  # the iD's papers (as last read) are none of the person's
    NO_ORCID = "no-orcid"  # the reader has not signed in with ORCID


@dataclass(frozen=True)
class Checked:
    """A check's outcome and the person's papers arXiv lists for the iD."""

    verification: Verification
    papers: tuple[str, ...] = ()


def is_verified() -> ColumnElement[bool]:
    return Subscriber.claim_verified_at.is_not(None)


def claimant(session: Session, person: int) -> int | None:
    """The person's verified claimant, if any: the one whose claim counts for everyone."""
    found = select(Subscriber.id).where(Subscriber.claimed_person == person, is_verified())
    return session.scalar(found.limit(1))


def hidden_condition() -> ColumnElement[bool]:
    """SQL for "the person's page is hidden": by a moderator, or by a verified claimant who
    still holds the claim (a claim let go, or an account deleted, shows the page again)."""
    hider = (
        select(Subscriber.id)
        .where(Subscriber.claimed_person == Person.id, is_verified())
        .where(Person.hidden_by == BY_READER + cast(Subscriber.id, String))
        .exists()
    )
    return Person.hidden & (Person.hidden_by.startswith(BY_MODERATOR) | hider)


def sees_hidden(session: Session, subscriber: Subscriber, person: int) -> bool:
    """Whether the reader sees the person's page even when it is hidden."""
    own = subscriber.claimed_person == person and subscriber.claim_verified_at is not None
    return own or is_moderator(session, subscriber.email_key)


def claim_person(session: Session, subscriber: Subscriber, person: Person, now: datetime) -> None:
    """ "This is me" on a person's page, unverified: it changes this reader's view alone."""
    if subscriber.claimed_person == person.id:
        return
    let_go(session, subscriber)
    reader.claim(session, subscriber, person.author_key, now, person=person.id)


def let_go(session: Session, subscriber: Subscriber) -> None:
    """Take the claim back, its verification and the claimant's hide with it."""
    unverify(session, subscriber)
    reader.unclaim(session, subscriber)


def unverify(session: Session, subscriber: Subscriber) -> None:
    """The claim stops being verified; the page its claimant hid shows again (verified anew,
    the claimant hides it anew if they wish)."""
    if subscriber.claimed_person is not None and subscriber.claim_verified_at is not None:
        person = session.get(Person, subscriber.claimed_person)
        if person is not None and person.hidden_by == f"{BY_READER}{subscriber.id}":
            person.hidden, person.hidden_by = False, None
    subscriber.claim_verified_at = subscriber.claim_verified_by = None


def listed_papers(session: Session, orcid: str, person: int) -> tuple[str, ...]:
    """The person's papers that arXiv's feed for the iD listed when last read."""
    found = (
        select(PaperPerson.arxiv_id)
        .where(PaperPerson.person_id == person)
        .where(
            PaperPerson.arxiv_id.in_(select(OrcidPaper.arxiv_id).where(OrcidPaper.orcid == orcid))
        )
    )
    return tuple(sorted(set(session.scalars(found))))


def verify_claim(session: Session, subscriber: Subscriber, person: int, now: datetime) -> Checked:
    """Verify the reader's claim of the person by what arXiv lists for their ORCID iD;
    refused when another reader's claim of the person is verified already."""
    require_verifiable(session, subscriber, person)
    if subscriber.orcid is None:
        return Checked(Verification.NO_ORCID)
    papers = listed_papers(session, subscriber.orcid, person)
    if not papers:
        return Checked(Verification.NOT_LISTED)
    if subscriber.claim_verified_at is None:
        subscriber.claim_verified_at = now
        subscriber.claim_verified_by = f"{BY_ARXIV}{subscriber.orcid}"
        session.flush()
    return Checked(Verification.VERIFIED, papers)


def require_verifiable(session: Session, subscriber: Subscriber, person: int) -> None:
    """Refuse a check of a claim the reader does not hold, or of a person another reader's
    verified claim holds."""
    if subscriber.claimed_person != person:
        raise NotClaimantError(f"person {person} is not claimed by this reader")
    holder = claimant(session, person)
    if holder is not None and holder != subscriber.id:
        raise ClaimTakenError(
            f"person {person} already has a verified claimant; if that is not them, "
            "ask a moderator to look at it"
        )


def set_hidden(session: Session, subscriber: Subscriber, person: int, *, hidden: bool) -> None:
    """Hide or show a person's page as its verified claimant. What a moderator decided of the
    page (hidden, or shown again) is for a moderator to change (:func:`moderate_page`)."""
    row = session.get_one(Person, person)
    if subscriber.claimed_person != person or subscriber.claim_verified_at is None:
        raise NotClaimantError(
            f"only person {person}'s verified claimant or a moderator may hide or show the page"
        )
    if (row.hidden_by or "").startswith(BY_MODERATOR):
        raise NotClaimantError(
            f"a moderator decided whether person {person}'s page shows; ask a moderator"
        )
    row.hidden, row.hidden_by = hidden, f"{BY_READER}{subscriber.id}" if hidden else None


@dataclass(frozen=True)
class HiddenPage:
    """A person's page hidden from everyone, for the moderation queue."""

    person_id: int
    author_key: str
    by_moderator: bool  # else by its verified claimant


def hidden_pages(session: Session) -> list[HiddenPage]:
    rows = session.execute(
        select(Person.id, Person.author_key, Person.hidden_by)
        .where(hidden_condition())
        .order_by(Person.id)
    )
    return [
        HiddenPage(row.id, row.author_key, (row.hidden_by or "").startswith(BY_MODERATOR))
        for row in rows
    ]


def moderate_page(session: Session, person: int, verdict: Verdict, now: datetime) -> None:
    """Hide or show the person's page as a moderator decided; the decision, with its reason,
    goes to the person's verified claimant (if any) and stands until a moderator decides
    again."""
    row = session.get(Person, person)
    if row is None or row.moved_to is not None:
        raise LookupError(f"person {person}")
    row.hidden = verdict.decision == HIDDEN
    row.hidden_by = f"{BY_MODERATOR}{verdict.moderator}"
    moderation.log(session, "hide", [claimant(session, person)], person, None, verdict, now)
    session.flush()
