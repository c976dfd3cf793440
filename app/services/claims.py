"""A person's page and its buttons as use cases: who may see a person, "This is me" and its
check with arXiv, hiding a claimed page, following a person, and readers' "not theirs"
corrections.

A claim is checked with arXiv when it is made and when its claimant asks again: for a reader
who signed in with ORCID, arXiv's author feed for the iD is read (:mod:`ingest.arxiv_author`,
through the politeness gate, outside any transaction) and the claim is verified when the feed
lists one of the person's papers (:mod:`accounts.person_claims`). A page its verified
claimant (or a moderator) hid is missing (:class:`NotFound`) to everyone else, to its buttons
as to its page. Corrections readers agree on change everyone's page, so the name is split again at
once when one does (:func:`app.services.people.split_names`). Each action is one unit of
work of its own (:func:`app.services.readers.as_reader`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from accounts import corrections, person_claims, reader
from accounts.moderation import is_moderator
from accounts.person_claims import claimant, hidden_condition
from app.core.db import session_scope
from app.core.models import PaperPerson, Person, Subscriber
from app.core.names import is_group_key
from app.core.refusals import NotFound, Refused
from app.services.arxiv_checks import ArxivCheck, OwnClaim, check_with_arxiv, own_claim
from app.services.people import split_names
from app.services.readers import as_reader
from app.services.reports import Deployment

__all__ = ["ArxivCheck", "OwnClaim", "claimant", "hidden_condition"]

GROUP_PAPERS = (
    "a group author's papers are all the group's: Paperboy does not split a collaboration, "
    "so a paper listing it stays on its page (ask arXiv to correct a wrong author list)"
)
# A moved person's chain of moves is followed this far: a longer one is a loop.
MOVES_FOLLOWED = 20


@dataclass(frozen=True)
class Found:
    """A person asked for by id: the row, or where its address moved."""

    person: Person | None
    moved_to: int | None = None


@dataclass(frozen=True)
class ShownPerson:
    """A person's page as one reader may see it: ``own`` when they claim it (``claim`` says
    how far), ``left_out`` the papers they said are not the person's, ``moderating`` when
    they are a moderator (who hides or shows the page with a reason)."""

    person: Person
    hidden: bool
    own: bool
    left_out: set[str]
    claim: OwnClaim | None = None
    moderating: bool = False


def find_person(session: Session, person_id: int) -> Found:
    """The person, or the person its papers moved to (through every later move); a person
    left holding no papers is missing (its page answers 404, never an empty page)."""
    person = session.get(Person, person_id)
    for _ in range(MOVES_FOLLOWED):
        if person is None or person.moved_to is None:
            break
        person = session.get(Person, person.moved_to)
    if person is None or not _holds_papers(session, person.id):
        return Found(None)
    if person.id == person_id:
        return Found(person)
    return Found(None, moved_to=person.id)


def _holds_papers(session: Session, person_id: int) -> bool:
    return (
        session.scalar(
            select(PaperPerson.arxiv_id).where(PaperPerson.person_id == person_id).limit(1)
        )
        is not None
    )


def is_hidden(session: Session, person: Person) -> bool:
    """Whether the person's page is hidden (by a moderator, or a verified claimant who still
    claims it)."""
    hidden = select(Person.id).where(Person.id == person.id, hidden_condition())
    return person.hidden and session.scalar(hidden) is not None


def shown_person(
    session: Session, person_id: int, person: Person | None, email_key: str | None
) -> ShownPerson:
    """The person (found for ``person_id``) as the signed-in reader (``email_key``) may see
    them; a hidden page is missing to all but its verified claimant and the moderators (a
    moderator who never pressed a button has no row, and sees it all the same)."""
    seen_by = None if email_key is None else reader.find(session, email_key)
    moderating = email_key is not None and is_moderator(session, email_key)
    hidden = person is not None and is_hidden(session, person)
    if person is None or (hidden and not moderating and not _sees_hidden(session, seen_by, person)):
        raise NotFound(f"no person {person_id} is shown here")
    own = seen_by is not None and seen_by.claimed_person == person.id
    mine = corrections.own(session, seen_by.id, person.id) if seen_by is not None else set()
    claim = own_claim(seen_by) if own and seen_by is not None else None
    return ShownPerson(
        person=person, hidden=hidden, own=own, left_out=mine, claim=claim, moderating=moderating
    )


def _sees_hidden(session: Session, seen_by: Subscriber | None, person: Person) -> bool:
    return seen_by is not None and person_claims.sees_hidden(session, seen_by, person.id)


def _person(session: Session, person_id: int, found: Subscriber) -> Person:
    """The person a button acts on; a hidden one is missing to all but those who see it."""
    person = session.get(Person, person_id)
    if person is None or person.moved_to is not None:
        raise LookupError(f"person {person_id}")
    if is_hidden(session, person) and not _sees_hidden(session, found, person):
        raise LookupError(f"person {person_id}")
    return person


def claim_person(site: Deployment, email_key: str, person_id: int) -> ArxivCheck:
    """ "This is me", unverified (any number of readers may say it), then checked with arXiv
    unless another reader's claim of the person is verified already."""

    def step(session: Session, found: Subscriber, now: datetime) -> bool:
        person_claims.claim_person(session, found, _person(session, person_id, found), now)
        return claimant(session, person_id) not in (None, found.id)

    if as_reader(site, email_key, step):
        return ArxivCheck.TAKEN
    return check_claim(site, email_key, person_id)


def check_claim(site: Deployment, email_key: str, person_id: int) -> ArxivCheck:
    """ "Check with arXiv again": read the feed of the claimant's ORCID iD and verify the
    claim by it; refused (409) when another reader's claim of the person is verified. A
    verified claim's name is split again at once: the papers just read are what the split
    knows the person by, and the claimant should see them on the page now."""
    checked = check_with_arxiv(site, email_key, person_id, _person)
    if checked is ArxivCheck.VERIFIED:
        with session_scope(site.sessions) as session:
            person = session.get(Person, person_id)
            name = person.author_key if person is not None else None
        if name is not None:
            split_names(site.settings, site.sessions, [name])
    return checked


def unclaim_person(site: Deployment, email_key: str, person_id: int) -> None:
    """Take back the claim of this person (a claim of another stays)."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        if found.claimed_person == person_id:
            person_claims.let_go(session, found)

    as_reader(site, email_key, step)


def hide_person(site: Deployment, email_key: str, person_id: int, *, hidden: bool) -> None:
    """Hide or show a person's page: its verified claimant's choice, or a moderator's."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        _person(session, person_id, found)
        person_claims.set_hidden(session, found, person_id, hidden=hidden)

    as_reader(site, email_key, step)


def follow_person(site: Deployment, email_key: str, person_id: int, *, follow: bool) -> None:
    """Follow a person shown here, or stop (leaving always works, even a person hidden or
    moved since)."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        if follow:
            _person(session, person_id, found)
        reader.set_person(found, person_id, follow=follow)

    as_reader(site, email_key, step)


def correct_person(
    site: Deployment, email_key: str, person_id: int, arxiv_id: str, *, undo: bool
) -> None:
    """Say (or take back) "this paper is not by this person"; when what readers agree on
    changes, the name is split again, so everyone's page shows it. Refused on a group
    author's page: every paper that lists the group is the group's (a wrong author list is
    arXiv's to correct), and nothing splits a group."""

    def step(session: Session, found: Subscriber, now: datetime) -> str | None:
        person = _person(session, person_id, found)
        if is_group_key(person.author_key) and not undo:
            raise Refused(GROUP_PAPERS)
        before = corrections.agreed(session, person.id, arxiv_id)
        if undo:
            corrections.withdraw(session, found, person.id, arxiv_id, now)
        else:
            corrections.correct(session, found, person, arxiv_id, now)
        changed = before != corrections.agreed(session, person.id, arxiv_id)
        return person.author_key if changed else None

    changed_name = as_reader(site, email_key, step)
    if changed_name is not None:
        split_names(site.settings, site.sessions, [changed_name])


def claim_unless_group(site: Deployment, email_key: str, person_id: int) -> ArxivCheck:
    """ "This is me", refused on a group author's page: a collaboration is no one reader."""
    with session_scope(site.sessions) as session:
        person = session.get(Person, person_id)
        if person is not None and is_group_key(person.author_key):
            raise Refused("a group author's page is claimed by nobody")
    return claim_person(site, email_key, person_id)
