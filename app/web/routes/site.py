"""What browsers and crawlers ask for at the site's root: ``/favicon.ico``, ``/robots.txt``
and ``/sitemap.xml``.

``static/favicon.ico`` is ``static/favicon.svg`` drawn by chromium at 16, 32 and 48 pixels,
each a PNG inside one ICO file (which every browser reads); browsers that read SVG icons get
the SVG from the pages' ``<link rel="icon">``.

The sitemap follows the sitemaps.org protocol: one ``<urlset>`` of at most 50,000 absolute
URLs (and under 50 MB, which 50,000 short URLs stay far below), so it never needs an index
file. It lists, newest first, the trending editions, the topics, the papers of published
editions and their authors, until :data:`MAX_URLS` is reached: each read asks only for what is
left of that budget, so a large archive costs bounded queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from urllib.parse import quote
from xml.etree import ElementTree as ET  # builds, never parses

from fastapi import APIRouter, Request, Response
from fastapi.responses import FileResponse
from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from app.core.models import Edition, EditionItem, PaperAuthor, TopicDay
from app.web.caching import Rendered, cached, rendered
from app.web.context import STATIC_DIR, ContextDep, SessionDep

router = APIRouter(include_in_schema=False)
FAVICON = STATIC_DIR / "favicon.ico"
ONE_WEEK = "public, max-age=604800"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
MAX_URLS = 50_000
# Pages with nothing for a search engine: the API, a reader's own subscription pages, sign-in
# and votes (a vote is a POST, but a crawler has no business near it either).
DISALLOWED = ("/api/", "/subscriptions/", "/signin", "/votes")


def _site_url(context: ContextDep) -> str:
    return context.settings.public_base_url.rstrip("/")


@router.get("/favicon.ico")
def favicon() -> FileResponse:
    return FileResponse(FAVICON, media_type="image/x-icon", headers={"Cache-Control": ONE_WEEK})


@router.get("/robots.txt")
def robots(request: Request, context: ContextDep) -> Response:
    body = robots_txt(_site_url(context)).encode()
    return cached(request, body, "text/plain; charset=utf-8")


@router.get("/sitemap.xml")
def sitemap(request: Request, context: ContextDep, session: SessionDep) -> Response:
    """Kept in the memo like a page: rebuilt once the memo's time-to-live has passed."""

    def build() -> Rendered:
        return rendered(sitemap_xml(_site_url(context), site_urls(session)))

    return cached(request, context.memo.get(("sitemap",), build), "application/xml")


@dataclass(frozen=True, slots=True)
class SiteUrl:
    """A page of the site by its path (``/papers/2512.14133``), and when it last changed."""

    path: str
    lastmod: date | None = None


def robots_txt(site_url: str) -> str:
    """Every page allowed but the private and machine paths, and where the sitemap is."""
    lines = ["User-agent: *", "Allow: /", *(f"Disallow: {path}" for path in DISALLOWED)]
    return "\n".join([*lines, "", f"Sitemap: {site_url}/sitemap.xml", ""])


def sitemap_xml(site_url: str, urls: list[SiteUrl]) -> bytes:
    """The ``<urlset>`` of the first :data:`MAX_URLS` URLs, each made absolute on ``site_url``
    (the public base URL, no trailing slash)."""
    root = ET.Element("urlset", {"xmlns": SITEMAP_NS})
    for url in urls[:MAX_URLS]:
        entry = ET.SubElement(root, "url")
        ET.SubElement(entry, "loc").text = site_url + url.path
        if url.lastmod is not None:
            ET.SubElement(entry, "lastmod").text = url.lastmod.isoformat()
    body: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return body


def site_urls(session: Session, limit: int = MAX_URLS) -> list[SiteUrl]:
    """The pages worth a crawler's visit, most useful first, at most ``limit``."""
    urls = _editions(session, limit)
    for read in (_topics, _papers, _authors):
        if len(urls) >= limit:
            break
        urls += read(session, limit - len(urls))
    return urls[:limit]


def _editions(session: Session, limit: int) -> list[SiteUrl]:
    """The home page, then each edition (any version: the page shows the latest)."""
    newest = func.max(Edition.published_at).label("published_at")
    rows = session.execute(
        select(Edition.period, Edition.edition_date, newest)
        .group_by(Edition.period, Edition.edition_date)
        .order_by(Edition.edition_date.desc(), Edition.period)
        .limit(limit - 1)
    ).all()
    home = SiteUrl("/", max((row.published_at.date() for row in rows), default=None))
    return [home, *(_edition_url(row.period, row.edition_date, row.published_at) for row in rows)]


def _edition_url(period: str, key: date, published_at: datetime) -> SiteUrl:
    return SiteUrl(f"/?period={period}&date={key.isoformat()}", published_at.date())


def _topics(session: Session, limit: int) -> list[SiteUrl]:
    latest = func.max(TopicDay.day)
    query = select(TopicDay.topic_id, latest).group_by(TopicDay.topic_id)
    return _listed(session, query.order_by(latest.desc(), TopicDay.topic_id), "/topics/", limit)


def _papers(session: Session, limit: int) -> list[SiteUrl]:
    latest = func.max(Edition.edition_date)
    query = (
        select(EditionItem.arxiv_id, latest)
        .join(Edition, Edition.id == EditionItem.edition_id)
        .group_by(EditionItem.arxiv_id)
        .order_by(latest.desc(), EditionItem.arxiv_id)
    )
    return _listed(session, query, "/papers/", limit)


def _authors(session: Session, limit: int) -> list[SiteUrl]:
    """Authors of the papers of published editions (not every stored author: a bulk import
    holds millions, most never shown)."""
    latest = func.max(Edition.edition_date)
    query = (
        select(PaperAuthor.author_key, latest)
        .join(EditionItem, EditionItem.arxiv_id == PaperAuthor.arxiv_id)
        .join(Edition, Edition.id == EditionItem.edition_id)
        .group_by(PaperAuthor.author_key)
        .order_by(latest.desc(), PaperAuthor.author_key)
    )
    return _listed(session, query, "/authors/", limit)


def _listed(session: Session, query: Select[Any, date], prefix: str, limit: int) -> list[SiteUrl]:
    rows = session.execute(query.limit(limit)).all()
    return [SiteUrl(prefix + quote(str(key), safe="/"), day) for key, day in rows]
