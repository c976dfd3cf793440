"""An author's page (``/authors/{key}``) and its buttons (``/authors/{key}/…``): claim,
unclaim, follow and mute.

An author is a name as papers spell it; a person (``/people/{id}``, :mod:`routes.people`) is
one of the people behind a name. The buttons are plain form POSTs, as every reader button is
(:func:`app.web.routes.reader.post_action`).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import HTMLResponse

from app.core.refusals import NotFound
from app.services import readers
from app.web import profiles
from app.web.context import ContextDep, SessionDep
from app.web.forms import MAX_ID
from app.web.routes.reader import PRIVATE, Verb, asked_stance, post_action, signed_in_stances

router = APIRouter(include_in_schema=False)
AuthorKey = Annotated[str, Path(max_length=200)]


@router.get("/authors/{key}", response_class=HTMLResponse)
def author_page(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    key: AuthorKey,
    page_number: Annotated[int, Query(alias="page", ge=1, le=MAX_ID)] = 1,
) -> Response:
    page = profiles.author_page(session, key, page=page_number)
    if page is None:
        raise NotFound("no author with this key is stored here")
    stances = signed_in_stances(request, context, session)
    if stances is None:
        return context.respond(request, "pages/author.html", page)
    page = replace(page, stance=stances.on_author(key))
    return context.respond(request, "pages/author.html", page, headers=PRIVATE)


@router.post("/authors/{key}/claim")
async def claim(request: Request, context: ContextDep, key: AuthorKey) -> Response:
    act = partial(readers.claim_author, context, key=key)
    return await post_action(request, context, act, {"claimed": key}, f"/authors/{key}")


@router.post("/authors/{key}/unclaim")
async def unclaim(request: Request, context: ContextDep, key: AuthorKey) -> Response:
    act = partial(readers.unclaim_author, context, key=key)
    return await post_action(request, context, act, {"claimed": None}, f"/authors/{key}")


# After claim and unclaim: their paths would match these too.
@router.post("/authors/{key}/{verb}")
async def author_stance(
    request: Request, context: ContextDep, key: AuthorKey, verb: Verb
) -> Response:
    stance = await asked_stance(request, verb)
    act = partial(readers.set_author_stance, context, key=key, stance=stance)
    done = {"author": key, "stance": stance}
    return await post_action(request, context, act, done, f"/authors/{key}")
