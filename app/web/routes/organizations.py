"""An organization's page (``/organizations/{slug}``): the papers submitted to Hugging Face's
daily page under it (by its slug there, ``ByteDance-Seed``), newest first, and its topics month
by month (:func:`app.web.profiles.topic_months`); its feeds are under ``/feeds/organization/``.

A signed-in reader follows it (``/organizations/{slug}/follow``, ``undo`` to stop), a plain
form POST as every reader button is (:func:`app.web.routes.reader.post_action`): its new
papers then make a section of their digest. The page counts its followers, never naming them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import HTMLResponse
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import HfDailyPaper, Paper, Subscriber
from app.core.refusals import NotFound
from app.services import readers
from app.services.reading import reader_stances
from app.web import queries
from app.web.context import ContextDep, SessionDep
from app.web.forms import read_form
from app.web.people import FOLLOWING
from app.web.profiles import OrganizationMonth, topic_months
from app.web.routes.reader import PRIVATE, post_action, signed_in_reading
from app.web.view_models import Card

router = APIRouter(include_in_schema=False)
PAPERS_SHOWN = 50
Slug = Annotated[str, Path(max_length=200)]


@dataclass(frozen=True)
class OrganizationPage:
    slug: str
    name: str  # as Hugging Face shows it, else the slug
    papers: list[Card]  # the newest first, at most PAPERS_SHOWN
    paper_count: int
    months: list[OrganizationMonth]  # newest first
    followers: int = 0  # readers following it (a count only: who follows stays private)
    stance: str = ""  # the signed-in reader's: "follow" or ""


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
        followers=organization_followers(session, slug),
    )


def organization_followers(session: Session, slug: str) -> int:
    """How many readers follow the organization (their lists are JSON: counted here)."""
    lists = session.scalars(
        select(Subscriber.followed_organizations).where(Subscriber.status.in_(FOLLOWING))
    )
    return sum(slug in (followed or ()) for followed in lists)


@router.get("/organizations/{slug}", response_class=HTMLResponse)
def organization(
    request: Request,
    context: ContextDep,
    session: SessionDep,
    slug: Slug,
) -> Response:
    page = organization_page(session, slug)
    if page is None:
        raise NotFound("no paper of this organization is stored here")
    email_key = signed_in_reading(request, context, session)
    if email_key is None:
        return context.respond(request, "pages/organization.html", page)
    page = replace(page, stance=reader_stances(session, email_key).on_organization(slug))
    return context.respond(request, "pages/organization.html", page, headers=PRIVATE)


@router.post("/organizations/{slug}/follow")
async def follow(request: Request, context: ContextDep, slug: Slug) -> Response:
    """Follow the organization (``undo``: stop, which works even once it has no page)."""
    following = not (await read_form(request)).get("undo")
    act = partial(readers.follow_organization, context, slug=slug, follow=following)
    done = {"organization": slug, "followed": following}
    return await post_action(request, context, act, done, f"/organizations/{quote(slug)}")
