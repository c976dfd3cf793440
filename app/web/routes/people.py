"""A person's page, ``/people/{id}``, and its buttons: "This is me" (checked with arXiv),
"Check with arXiv again", and hiding a page whose claim is verified.

A name can be several people (``paperboy people`` splits it); each person's page is the
name's page narrowed to their papers (100 a page, ``?page=``). When a new split leaves a
person no papers, the address answers 301 to the person now holding most of them. A page its
verified claimant (or a moderator) hid answers 404 to everyone else. The buttons are plain form
POSTs, as every reader button is (``app.web.routes.reader``); a claim and its check answer 303
to the page with what arXiv said (``?arxiv=``), or that in JSON; a group author's page refuses
"This is me".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.core.refusals import NotFound
from app.services import claims
from app.services.claims import ArxivCheck
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
    arxiv: Annotated[ArxivCheck | None, Query()] = None,
    page: Annotated[int, Query(ge=1, le=MAX_ID)] = 1,
) -> Response:
    found = claims.find_person(session, person_id)
    if found.moved_to is not None:
        return RedirectResponse(f"/people/{found.moved_to}", status_code=301)
    email_key = signed_in_reading(request, context, session)
    shown = claims.shown_person(session, person_id, found.person, email_key)
    person = shown.person
    shown_page = profiles.author_page(
        session, person.author_key, person.id, shown.left_out, page=page
    )
    if shown_page is None:
        raise NotFound(f"no person {person_id} is shown here")
    stance = "" if email_key is None else reader_stances(session, email_key).on_person(person.id)
    said = arxiv.message if arxiv else ""
    own = replace(shown.claim, said=said) if shown.claim else None
    shown_page = replace(
        shown_page, hidden=shown.hidden, stance=stance, own_claim=own, moderating=shown.moderating
    )
    private = email_key is not None  # its buttons show what this reader did
    headers = PRIVATE if private else None
    return context.respond(request, "pages/author.html", shown_page, headers=headers)


@router.post("/people/{person_id}/claim")
async def claim(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    act = partial(claims.claim_unless_group, context, person_id=person_id)
    return await _checked(request, context, act, {"claimedPerson": person_id}, person_id)


@router.post("/people/{person_id}/verify")
async def verify(request: Request, context: ContextDep, person_id: PersonId) -> Response:
    """ "Check with arXiv again": the claimant's ORCID iD's feed read anew."""
    act = partial(claims.check_claim, context, person_id=person_id)
    return await _checked(request, context, act, {"person": person_id}, person_id)


async def _checked(
    request: Request,
    context: ContextDep,
    act: Callable[[str], ArxivCheck],
    done: dict[str, object],
    person_id: int,
) -> Response:
    """Run a claim's action; answer with what arXiv said: in JSON, or on the page."""

    def run(email_key: str) -> None:
        done["arxiv"] = str(act(email_key))

    answer = await post_action(request, context, run, done, f"/people/{person_id}")
    if "arxiv" in done and isinstance(answer, RedirectResponse):
        where = f"/people/{person_id}?{urlencode({'arxiv': done['arxiv']})}#claim-heading"
        return RedirectResponse(where, status_code=303)
    return answer


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
