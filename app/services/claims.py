"""A person's page and its buttons as use cases: who may see a person, "This is me", hiding a
claimed page, following a person, and readers' "not theirs" corrections.

A page its claimant hid is missing (:class:`NotFound`) to everyone else, to its buttons as to
its page. Corrections readers agree on change everyone's page, so the name is split again at
once when one does (:func:`app.services.people.split_names`). Each action is one unit of
work of its own (:func:`app.services.readers.as_reader`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from accounts import corrections, reader
from accounts.reader import claimant, hidden_condition
from app.core.db import session_scope
from app.core.models import Person, Subscriber
from app.core.names import is_group_key
from app.core.refusals import NotFound, Refused
from app.services.people import split_names
from app.services.readers import as_reader
from app.services.reports import Deployment

__all__ = ["claimant", "hidden_condition"]

# A moved person's chain of moves is followed this far: a longer one is a loop.
MOVES_FOLLOWED = 20


@dataclass(frozen=True)
class Found:
    """A person asked for by id: the row, or where its address moved."""

    person: Person | None
    moved_to: int | None = None


@dataclass(frozen=True)
class ShownPerson:
    """A person's page as one reader may see it: ``own`` when they claim it, ``left_out``
    the papers they said are not the person's."""

    person: Person
    hidden: bool
    own: bool
    left_out: set[str]


def find_person(session: Session, person_id: int) -> Found:
    """The person, or the person its papers moved to (through every later move)."""
    person = session.get(Person, person_id)
    for _ in range(MOVES_FOLLOWED):
        if person is None or person.moved_to is None:
            break
        person = session.get(Person, person.moved_to)
    if person is None or person.id == person_id:
        return Found(person)
    return Found(None, moved_to=person.id)


def is_hidden(session: Session, person: Person) -> bool:
    """Whether the person's page is hidden (by a claimant who still claims it)."""
    return person.hidden and claimant(session, person.id) is not None


def viewer(session: Session, email_key: str | None) -> Subscriber | None:
    """The signed-in reader's row: their claim and corrections shape the page they see."""
    return None if email_key is None else reader.find(session, email_key)


def shown_person(
    session: Session, person_id: int, person: Person | None, seen_by: Subscriber | None
) -> ShownPerson:
    """The person (found for ``person_id``) as ``seen_by`` may see them; a hidden page is
    missing to all but its claimant."""
    own = person is not None and seen_by is not None and seen_by.claimed_person == person.id
    hidden = person is not None and is_hidden(session, person)
    if person is None or (hidden and not own):
        raise NotFound(f"no person {person_id} is shown here")
    mine = corrections.own(session, seen_by.id, person.id) if seen_by is not None else set()
    return ShownPerson(person=person, hidden=hidden, own=own, left_out=mine)


def _person(session: Session, person_id: int, found: Subscriber) -> Person:
    """The person a button acts on; a hidden one is missing to all but its claimant."""
    person = session.get(Person, person_id)
    if person is None or person.moved_to is not None:
        raise LookupError(f"person {person_id}")
    if found.claimed_person != person.id and is_hidden(session, person):
        raise LookupError(f"person {person_id}")
    return person


def claim_person(site: Deployment, email_key: str, person_id: int) -> None:
    """ "This is me": refused when another reader claims the person already."""
    as_reader(
        site,
        email_key,
        lambda session, found, now: reader.claim_person(
            session, found, _person(session, person_id, found), now
        ),
    )


def unclaim_person(site: Deployment, email_key: str, person_id: int) -> None:
    """Take back the claim of this person (a claim of another stays)."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        if found.claimed_person == person_id:
            reader.unclaim(session, found)

    as_reader(site, email_key, step)


def hide_person(site: Deployment, email_key: str, person_id: int, *, hidden: bool) -> None:
    """Hide or show a person's page: its claimant's choice alone."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        _person(session, person_id, found)
        reader.set_hidden(session, found, person_id, hidden=hidden)

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
    changes, the name is split again, so everyone's page shows it."""

    def step(session: Session, found: Subscriber, now: datetime) -> str | None:
        person = _person(session, person_id, found)
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


def claim_unless_group(site: Deployment, email_key: str, person_id: int) -> None:
    """ "This is me", refused on a group author's page: a collaboration is no one reader."""
    with session_scope(site.sessions) as session:
        person = session.get(Person, person_id)
        if person is not None and is_group_key(person.author_key):
            raise Refused("a group author's page is claimed by nobody")
    claim_person(site, email_key, person_id)
