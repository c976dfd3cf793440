"""A person's page, ``/people/{id}``, and its buttons: "This is me", and hiding a claimed page.

A name can be several people (``paperboy people`` splits it); each person's page is the
name's page narrowed to their papers. When a new split leaves a person no papers, the address
answers 301 to the person now holding most of them. A page its claimant hid answers 404 to
everyone else. The buttons are plain form POSTs, as every reader button is
(``app.web.routes.reader``).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import Person, Subscriber
from app.web import profiles
from app.web.context import ContextDep, SessionDep
from app.web.params import MAX_ID
from app.web.people import find_person
from app.web.routes.reader import PRIVATE, post_action, signed_in_reading
from digest.accounts import reader

router = APIRouter(include_in_schema=False)
PersonId = Annotated[int, Path(ge=1, le=MAX_ID)]


@router.get("/people/{person_id}", response_class=HTMLResponse)
def person_page(
    request: Request, context: ContextDep, session: SessionDep, person_id: PersonId
) -> Response:
    found = find_person(session, person_id)
    if found.moved_to is not None:
        return RedirectResponse(f"/people/{found.moved_to}", status_code=301)
    person = found.person
    own = person is not None and _claimant(request, context, session, person)
    if person is None or (person.hidden and not own):
        raise HTTPException(404, f"no person {person_id} is shown here")
    page = profiles.author_page(session, person.author_key, person.id)
    if page is None:
        raise HTTPException(404, f"no person {person_id} is shown here")
    page = replace(page, hidden=person.hidden)
    return context.respond(request, "pages/author.html", page, headers=PRIVATE if own else None)


def _claimant(request: Request, context: ContextDep, session: Session, person: Person) -> bool:
    """Whether the signed-in reader claimed this person (only asked of a hidden page)."""
    if not person.hidden:
        return False
    email_key = signed_in_reading(request, context, session)
    if email_key is None:
        return False
    claimed = select(Subscriber.claimed_person).where(Subscriber.email_key == email_key)
    return session.scalar(claimed) == person.id


def _person(session: Session, person_id: int) -> Person:
    found = session.get(Person, person_id)
    if found is None or found.moved_to is not None:
        raise LookupError(f"person {person_id}")
    return found


def _claiming(person_id: int, session: Session, found: Subscriber, now: datetime) -> None:
    person = _person(session, person_id)
    reader.unclaim(session, found)
    reader.claim(session, found, person.author_key, now, person=person.id)


def _unclaiming(person_id: int, session: Session, found: Subscriber, now: datetime) -> None:
    if found.claimed_person == person_id:
        reader.unclaim(session, found)


def _hiding(
    person_id: int, hidden: bool, session: Session, found: Subscriber, now: datetime
) -> None:
    _person(session, person_id)
    reader.set_hidden(session, found, person_id, hidden=hidden)


@router.post("/people/{person_id}/claim")
async def claim(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    act = partial(_claiming, person_id)
    done = {"claimedPerson": person_id}
    return await post_action(request, context, act, done, f"/people/{person_id}")


@router.post("/people/{person_id}/unclaim")
async def unclaim(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    act = partial(_unclaiming, person_id)
    done = {"claimedPerson": None}
    return await post_action(request, context, act, done, f"/people/{person_id}")


@router.post("/people/{person_id}/hide")
async def hide(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    act = partial(_hiding, person_id, True)
    done = {"person": person_id, "hidden": True}
    return await post_action(request, context, act, done, f"/people/{person_id}")


@router.post("/people/{person_id}/show")
async def show(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    act = partial(_hiding, person_id, False)
    done = {"person": person_id, "hidden": False}
    return await post_action(request, context, act, done, f"/people/{person_id}")
