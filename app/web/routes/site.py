"""What browsers and crawlers ask for at the site's root: ``/favicon.ico``, ``/robots.txt``
and ``/sitemap.xml``.

``static/favicon.ico`` is ``static/favicon.svg`` drawn by chromium at 16, 32 and 48 pixels,
each a PNG inside one ICO file (which every browser reads); browsers that read SVG icons get
the SVG from the pages' ``<link rel="icon">``.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import FileResponse

from app.web.caching import Rendered, cached, rendered
from app.web.catalogue import site_urls
from app.web.context import STATIC_DIR, ContextDep, SessionDep
from app.web.sitemap import robots_txt, sitemap_xml

router = APIRouter(include_in_schema=False)
FAVICON = STATIC_DIR / "favicon.ico"
ONE_WEEK = "public, max-age=604800"


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
