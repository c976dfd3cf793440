"""The topics index at ``/topics``; each topic's own page (``/topics/{id}``) is in ``search``."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from app.web.context import ContextDep, SessionDep
from app.web.topic_index import topics_index

router = APIRouter(include_in_schema=False)


@router.get("/topics", response_class=HTMLResponse)
def topics_page(request: Request, context: ContextDep, session: SessionDep) -> Response:
    return context.respond(request, "pages/topics.html", topics_index(session))
