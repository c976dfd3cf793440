"""An organization's page (``/organizations/{slug}``): the papers submitted to Hugging Face's
daily page under it (by its slug there, ``ByteDance-Seed``), newest first, and its topics month
by month (:func:`app.web.profiles.topic_months`); its feeds are under ``/feeds/organization/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import HTMLResponse
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import HfDailyPaper, Paper
from app.core.refusals import NotFound
from app.web import queries
from app.web.context import ContextDep, SessionDep
from app.web.profiles import OrganizationMonth, topic_months
from app.web.view_models import Card

router = APIRouter(include_in_schema=False)
PAPERS_SHOWN = 50


@dataclass(frozen=True)
class OrganizationPage:
    slug: str
    name: str  # as Hugging Face shows it, else the slug
    papers: list[Card]  # the newest first, at most PAPERS_SHOWN
    paper_count: int
    months: list[OrganizationMonth]  # newest first


def organization_page(session: Session, slug: str) -> OrganizationPage | None:
    rows = session.execute(
        select(HfDailyPaper.arxiv_id, HfDailyPaper.organization_fullname)
        .join(Paper, Paper.arxiv_id == HfDailyPaper.arxiv_id)
        .where(HfDailyPaper.organization_name == slug)
        .order_by(Paper.announced_on.desc().nulls_last(), Paper.arxiv_id.desc())
    ).all()
    if not rows:
        return None
    # A paper listed on several days has a row for each: kept once, in its newest place.
    ids = list(dict.fromkeys(row.arxiv_id for row in rows))
    names = [row.organization_fullname for row in rows if row.organization_fullname]
    return OrganizationPage(
        slug=slug,
        name=names[0] if names else slug,
        papers=queries.plain_cards(session, ids[:PAPERS_SHOWN]),
        paper_count=len(ids),
        months=topic_months(session, ids),
    )


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
