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
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.core.models import Person, Subscriber
from app.services.people import split_names
from app.web import profiles
from app.web.context import ContextDep, SessionDep
from app.web.forms import read_form
from app.web.params import MAX_ID
from app.web.people import find_person, is_hidden
from app.web.routes.reader import PRIVATE, post_action, signed_in_reading
from digest.accounts import corrections, reader

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
    viewer = _viewer(request, context, session)
    own = person is not None and viewer is not None and viewer.claimed_person == person.id
    hidden = person is not None and is_hidden(session, person)
    if person is None or (hidden and not own):
        raise HTTPException(404, f"no person {person_id} is shown here")
    mine = corrections.own(session, viewer.id, person.id) if viewer is not None else set()
    page = profiles.author_page(session, person.author_key, person.id, leave_out=mine)
    if page is None:
        raise HTTPException(404, f"no person {person_id} is shown here")
    page = replace(page, hidden=hidden)
    private = own or bool(mine)
    return context.respond(request, "pages/author.html", page, headers=PRIVATE if private else None)


def _viewer(request: Request, context: ContextDep, session: Session) -> Subscriber | None:
    """The signed-in reader's row: their claim and corrections shape the page they see."""
    email_key = signed_in_reading(request, context, session)
    return None if email_key is None else reader.find(session, email_key)


def _person(session: Session, person_id: int, found: Subscriber) -> Person:
    """The person a button acts on; a hidden one is missing to all but its claimant."""
    person = session.get(Person, person_id)
    if person is None or person.moved_to is not None:
        raise LookupError(f"person {person_id}")
    if found.claimed_person != person.id and is_hidden(session, person):
        raise LookupError(f"person {person_id}")
    return person


def _claiming(person_id: int, session: Session, found: Subscriber, now: datetime) -> None:
    reader.claim_person(session, found, _person(session, person_id, found), now)


def _unclaiming(person_id: int, session: Session, found: Subscriber, now: datetime) -> None:
    if found.claimed_person == person_id:
        reader.unclaim(session, found)


def _hiding(
    person_id: int, hidden: bool, session: Session, found: Subscriber, now: datetime
) -> None:
    _person(session, person_id, found)
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


def _following(
    person_id: int, follow: bool, session: Session, found: Subscriber, now: datetime
) -> None:
    if follow:  # leaving always works, even a person hidden or moved since
        _person(session, person_id, found)
    reader.set_person(found, person_id, follow=follow)


@router.post("/people/{person_id}/follow")
async def follow(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    following = not (await read_form(request)).get("undo")
    act = partial(_following, person_id, following)
    done = {"person": person_id, "followed": following}
    return await post_action(request, context, act, done, f"/people/{person_id}")


def _correcting(
    person_id: int,
    arxiv_id: str,
    undo: bool,
    changed: list[str],
    session: Session,
    found: Subscriber,
    now: datetime,
) -> None:
    """Say or take back "not theirs"; ``changed`` learns the name when everyone's page
    changes (the name is then split again)."""
    person = _person(session, person_id, found)
    before = corrections.agreed(session, person.id, arxiv_id)
    if undo:
        corrections.withdraw(session, found, person.id, arxiv_id, now)
    else:
        corrections.correct(session, found, person, arxiv_id, now)
    if before != corrections.agreed(session, person.id, arxiv_id):
        changed.append(person.author_key)


@router.post("/people/{person_id}/not-theirs")
async def not_theirs(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    """ "This paper is not by this person" (``undo``: take it back). The name is split again
    at once, so a correction readers agreed on shows on everyone's page."""
    form = await read_form(request)
    arxiv_id, undo = str(form.get("arxiv_id", ""))[:40], bool(form.get("undo"))
    changed: list[str] = []
    act = partial(_correcting, person_id, arxiv_id, undo, changed)
    done = {"person": person_id, "notTheirs": arxiv_id, "withdrawn": undo}
    answer = await post_action(request, context, act, done, f"/people/{person_id}")
    if changed:
        await run_in_threadpool(split_names, context.settings, context.sessions, changed)
    return answer


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
