"""Link previews (``og:image``), each a 1200 by 630 PNG, public for a day: a paper's
(``/previews/papers/{id}.png``), a topic's (``/previews/topics/{id}.png``), an edition's
(``/previews/{period}/{date}.png``) and the site's (``/previews/site.png``). Each is read from
the file the daily job stored, else drawn within the limits of ``WebContext.previews``
(:mod:`app.web.preview_drawings`): 429 or 503 with ``Retry-After`` past them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from fastapi import APIRouter, Request, Response
from fastapi.responses import PlainTextResponse
from sqlalchemy.orm import Session

from app.core.db import session_scope
from app.core.periods import Period
from app.core.refusals import NotFound
from app.services.previews.drawing import Preview, drawn
from app.services.previews.stored import PreviewKey, edition_preview, paper_preview, topic_preview
from app.web.caching import Rendered, cached, rendered
from app.web.context import ContextDep, WebContext
from app.web.forms import TopicId, client_host, paper_path_id
from app.web.preview_drawings import DrawingRefusedError

router = APIRouter(include_in_schema=False)
PNG = "image/png"
KEPT_A_DAY = "public, max-age=86400"
SITE = Preview(
    kicker="Paperboy",
    headline="The day's trending arXiv papers, ranked every morning",
    lines=("Topics, researchers, search, and a daily email digest of your own field",),
    footer="Trending, explained",
)


@router.get("/previews/papers/{arxiv_id:path}.png")
async def paper_image(request: Request, context: ContextDep, arxiv_id: str) -> Response:
    parsed = paper_path_id(arxiv_id)
    key = ("paper", parsed.base)
    return await _image(request, context, key, lambda s: paper_preview(s, parsed.base))


@router.get("/previews/topics/{topic_id}.png")
async def topic_image(request: Request, context: ContextDep, topic_id: TopicId) -> Response:
    key = ("topic", str(topic_id))
    return await _image(request, context, key, lambda s: topic_preview(s, topic_id))


@router.get("/previews/site.png")
async def site_image(request: Request, context: ContextDep) -> Response:
    """The site's own preview, for pages without one of their own (an author, the topics)."""
    return await _image(request, context, ("site", ""), lambda _: SITE)


@router.get("/previews/{period}/{day}.png")
async def edition_image(
    request: Request, context: ContextDep, period: Period, day: date
) -> Response:
    def preview(session: Session) -> Preview | None:
        edition = context.edition(session, period, day)
        return None if edition is None else edition_preview(session, edition)

    return await _image(request, context, (period, day.isoformat()), preview)


async def _image(
    request: Request,
    context: WebContext,
    key: PreviewKey,
    preview: Callable[[Session], Preview | None],
) -> Response:
    def build() -> Rendered:
        # A short unit of work of its own, closed before the drawing starts.
        with session_scope(context.sessions) as session:
            said = preview(session)
        if said is None:  # raised, so that nothing is kept for it
            raise NotFound("nothing stored here to preview")
        return rendered(drawn(said))

    try:
        image = await context.previews.image(key, client_host(request), build)
    except DrawingRefusedError as refused:
        # Plain text, not the error page: an image's client reads no page, and a refusal
        # must cost less than the drawing it refuses.
        retry = {"Retry-After": str(refused.retry_after)}
        return PlainTextResponse(str(refused), refused.status, headers=retry)
    return cached(request, image, PNG, cache_control=KEPT_A_DAY)
