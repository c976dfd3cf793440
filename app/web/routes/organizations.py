"""An organization's page (``/organizations/{slug}``): its papers on Hugging Face's daily page
and its topics over time; its feeds are under ``/feeds/organization/``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import HTMLResponse

from app.core.refusals import NotFound
from app.web.context import ContextDep, SessionDep
from app.web.organizations import organization_page

router = APIRouter(include_in_schema=False)


@router.get("/organizations/{slug}", response_class=HTMLResponse)
def organization(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    slug: Annotated[str, Path(max_length=200)],
) -> Response:
    page = organization_page(session, slug)
    if page is None:
        raise NotFound("no paper of this organization is stored here")
    return context.respond(request, "pages/organization.html", page)
