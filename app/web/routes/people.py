"""A person's page, ``/people/{id}``, and its buttons: "This is me", and hiding a claimed page.

A name can be several people (``paperboy people`` splits it); each person's page is the
name's page narrowed to their papers (100 a page, ``?page=``). When a new split leaves a
person no papers, the address answers 301 to the person now holding most of them. A page
its claimant hid answers 404 to everyone else. The buttons are plain form POSTs, as every
reader button is (``app.web.routes.reader``); a group author's page refuses "This is me".
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.core.refusals import NotFound
from app.services import claims
from app.services.reading import reader_stances
from app.web import profiles
from app.web.context import ContextDep, SessionDep
from app.web.forms import MAX_ID, read_form
from app.web.routes.reader import PRIVATE, post_action, signed_in_reading

router = APIRouter(include_in_schema=False)
PersonId = Annotated[int, Path(ge=1, le=MAX_ID)]


@router.get("/people/{person_id}", response_class=HTMLResponse)
def person_page(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    person_id: PersonId,
    page: Annotated[int, Query(ge=1, le=MAX_ID)] = 1,
) -> Response:
    found = claims.find_person(session, person_id)
    if found.moved_to is not None:
        return RedirectResponse(f"/people/{found.moved_to}", status_code=301)
    email_key = signed_in_reading(request, context, session)
    viewer = claims.viewer(session, email_key)
    shown = claims.shown_person(session, person_id, found.person, viewer)
    person = shown.person
    shown_page = profiles.author_page(
        session, person.author_key, person.id, shown.left_out, page=page
    )
    if shown_page is None:
        raise NotFound(f"no person {person_id} is shown here")
    stance = "" if email_key is None else reader_stances(session, email_key).on_person(person.id)
    shown_page = replace(shown_page, hidden=shown.hidden, stance=stance)
    private = email_key is not None  # its buttons show what this reader did
    headers = PRIVATE if private else None
    return context.respond(request, "pages/author.html", shown_page, headers=headers)


@router.post("/people/{person_id}/claim")
async def claim(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    act = partial(claims.claim_unless_group, context, person_id=person_id)
    done = {"claimedPerson": person_id}
    return await post_action(request, context, act, done, f"/people/{person_id}")


@router.post("/people/{person_id}/unclaim")
async def unclaim(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    act = partial(claims.unclaim_person, context, person_id=person_id)
    done = {"claimedPerson": None}
    return await post_action(request, context, act, done, f"/people/{person_id}")


@router.post("/people/{person_id}/follow")
async def follow(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    following = not (await read_form(request)).get("undo")
    act = partial(claims.follow_person, context, person_id=person_id, follow=following)
    done = {"person": person_id, "followed": following}
    return await post_action(request, context, act, done, f"/people/{person_id}")


@router.post("/people/{person_id}/not-theirs")
async def not_theirs(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    """ "This paper is not by this person" (``undo``: take it back). The name is split again
    at once, so a correction readers agreed on shows on everyone's page."""
    form = await read_form(request)
    arxiv_id, undo = str(form.get("arxiv_id", ""))[:40], bool(form.get("undo"))
    act = partial(claims.correct_person, context, person_id=person_id, arxiv_id=arxiv_id, undo=undo)
    done = {"person": person_id, "notTheirs": arxiv_id, "withdrawn": undo}
    return await post_action(request, context, act, done, f"/people/{person_id}")


@router.post("/people/{person_id}/hide")
async def hide(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    act = partial(claims.hide_person, context, person_id=person_id, hidden=True)
    done = {"person": person_id, "hidden": True}
    return await post_action(request, context, act, done, f"/people/{person_id}")


@router.post("/people/{person_id}/show")
async def show(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    act = partial(claims.hide_person, context, person_id=person_id, hidden=False)
    done = {"person": person_id, "hidden": False}
    return await post_action(request, context, act, done, f"/people/{person_id}")
