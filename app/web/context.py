"""What every request handler shares, and the dependencies that hand it over.

:class:`WebContext` holds the deployment's settings, session factory, clock, templates, search
index and turns, rate limiter and memo. ``create_app`` builds it once (:func:`build_context`)
and keeps it on ``app.state.web``; handlers take it as ``context: ContextDep`` and the
request's unit of work as ``session: SessionDep``. Tests build an app with a frozen clock
through the same function.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, fields
from datetime import date
from functools import partial
from typing import Annotated, Any

from anyio import CapacityLimiter, to_thread
from anyio.lowlevel import RunVar
from fastapi import Depends, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from sqlalchemy.orm import Session, sessionmaker

from app.core.bundled import BundledFolder, bundled_folder
from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.explanations import given_words
from app.core.models import Edition
from app.core.periods import Period
from app.core.reads import latest_edition
from app.core.replicas import Replicas
from app.core.tex import tex_text
from app.core.wal import format_position
from app.services.presenting import readable
from app.services.previews.stored import previews_directory
from app.services.search import Searcher, make_searcher, served_query_embedder
from app.web.assets import Assets
from app.web.limits import RateLimiter
from app.web.preview_drawings import DRAWING_LIMITS, DrawingLimits, PreviewDrawings
from app.web.read_routing import Memo, any_reader_session, lost_standby, open_session
from app.web.search_turns import SEARCH_LIMITS, SearchLimits, SearchTurns

TEMPLATES_DIR = bundled_folder(BundledFolder.TEMPLATES)
STATIC_DIR = bundled_folder(BundledFolder.STATIC)


@dataclass(frozen=True)
class WebContext:
    settings: Settings
    sessions: sessionmaker[Session]
    templates: Jinja2Templates
    assets: Assets  # the static files and their hashed URLs (templates call ``static(name)``)
    search: Searcher
    limiter: RateLimiter
    memo: Memo
    search_turns: SearchTurns
    # Link previews: stored by the daily job, or drawn in a pool of their own and kept apart
    # from the pages' memo (from the primary always: a revalidation need not draw them again).
    previews: PreviewDrawings
    clock: Clock = utc_now
    # The standbys that GET requests read from (None: every request reads the primary).
    replicas: Replicas | None = None

    def edition(self, session: Session, period: Period, key: date | None) -> Edition | None:
        """The edition to serve for (period, key), looked up at most once per memo lifetime.

        A hit costs no database query at all; a newly published edition is served once the
        kept lookup expires (``PAPERBOY_WEB_CACHE_SECONDS``).
        """
        return self.memo.get(
            ("edition", period, key), partial(_detached_edition, session, period, key)
        )

    def render(self, name: str, page: object) -> bytes:
        """A page (a view model dataclass) rendered to bytes, for responses kept in the memo."""
        return self.templates.get_template(name).render(template_names(page)).encode()

    def respond(
        self,
        request: Request,
        name: str,
        page: object,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> HTMLResponse:
        """A page (a view model dataclass) rendered as the answer to ``request``."""
        return self.templates.TemplateResponse(
            request, name, template_names(page), status_code=status, headers=headers
        )

    @property
    def secure_cookies(self) -> bool:
        """Cookies only over HTTPS in production, or wherever the site is served over HTTPS."""
        return self.settings.env == "production" or self.settings.public_base_url.startswith(
            "https"
        )


def _detached_edition(session: Session, period: Period, key: date | None) -> Edition | None:
    """The edition, detached from the request's session before the memo keeps it.

    A kept object must outlive the request that loaded it: attached, a rollback of that request
    (a refused parameter, a failed query) would expire it, and every later request reading it
    from the memo would fail. Its columns are loaded, so it reads well detached.
    """
    edition = latest_edition(session, period, key)
    if edition is not None:
        session.expunge(edition)
    return edition


def template_names(page: object) -> dict[str, Any]:
    """A view model's fields as the names its template reads (one level: fields stay typed)."""
    return {field.name: getattr(page, field.name) for field in fields(page)}  # type: ignore[arg-type]


def build_context(
    settings: Settings,
    sessions: sessionmaker[Session],
    clock: Clock = utc_now,
    search_limits: SearchLimits = SEARCH_LIMITS,
    drawing_limits: DrawingLimits = DRAWING_LIMITS,
) -> WebContext:
    """Everything the handlers share, for one deployment (``clock`` is the tests' to freeze)."""
    assets = Assets.of(STATIC_DIR)
    replicas = _replicas(settings, sessions, clock)
    reading = None if replicas is None else partial(any_reader_session, replicas, sessions)
    return WebContext(
        settings=settings,
        sessions=sessions,
        templates=make_templates(assets, settings.public_base_url, settings.show_hf_summary),
        assets=assets,
        search=make_searcher(settings, sessions, served_query_embedder, reading),
        limiter=RateLimiter(settings.api_rate_limit_per_minute, settings.api_rate_limit_burst),
        memo=Memo(settings.web_cache_seconds),
        search_turns=SearchTurns(search_limits, _search_rate(settings)),
        clock=clock,
        replicas=replicas,
        previews=_previews(settings, drawing_limits),
    )


def _replicas(settings: Settings, sessions: sessionmaker[Session], clock: Clock) -> Replicas | None:
    if not settings.database_replica_urls:
        return None
    return Replicas(settings, sessions.kw["bind"], clock)


def _previews(settings: Settings, limits: DrawingLimits) -> PreviewDrawings:
    rate = RateLimiter(settings.preview_drawings_per_minute, settings.preview_drawings_burst)
    return PreviewDrawings(previews_directory(settings.data_dir), rate, limits)


def _search_rate(settings: Settings) -> RateLimiter:
    """Each client's searches a minute: the JSON API's rate, counted apart from its requests."""
    return RateLimiter(settings.api_rate_limit_per_minute, settings.api_rate_limit_burst)


def make_templates(assets: Assets, site_url: str, show_hf_summary: bool = True) -> Jinja2Templates:
    """The pages' templates; ``site_url`` makes the absolute links a link preview needs;
    ``show_hf_summary``: whether pages show Hugging Face's summary (labelled as its own)."""
    templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
    # Autoescaping is on for .html; say so for every template, whatever its name.
    templates.env.autoescape = True
    templates.env.globals["static"] = assets.url
    templates.env.globals["site_url"] = site_url.rstrip("/")
    templates.env.globals["show_hf_summary"] = show_hf_summary
    templates.env.filters["plain"] = readable
    templates.env.filters["tex"] = tex_text
    templates.env.filters["lsn"] = format_position
    templates.env.filters["given_chance"] = given_words
    return templates


async def get_context(request: Request) -> WebContext:
    # async: a plain attribute read, not worth a trip to the thread pool
    context: WebContext = request.app.state.web
    return context


async def get_session(
    context: Annotated[WebContext, Depends(get_context)],
) -> AsyncIterator[Session]:
    """One unit of work per request, committed at the end (the edge).

    Opening a session on the primary does no I/O, so it happens on the event loop; the commit
    runs in the thread pool, and only if the request touched the database (a kept page does
    not). With standbys, a read may go to one of them (``app.web.read_routing``).
    """
    session = await open_session(context.replicas, context.sessions)
    try:
        yield session
    except BaseException as error:
        lost_standby(context.replicas, session, error)
        await to_thread.run_sync(_end, session, False, limiter=_session_ends())
        raise
    if session.in_transaction():
        await to_thread.run_sync(_end, session, True, limiter=_session_ends())
    else:
        session.close()


# Threads of their own for ending the requests' sessions (one set per event loop). An end
# holds a connection it is about to give back; waiting for one of the pages' threads, all of
# which may be held by requests waiting for a connection, it would wait for itself.
_SESSION_ENDS: RunVar[CapacityLimiter] = RunVar("paperboy_session_ends")
SESSION_END_THREADS = 8


def _session_ends() -> CapacityLimiter:
    try:
        return _SESSION_ENDS.get()
    except LookupError:
        limiter = CapacityLimiter(SESSION_END_THREADS)
        _SESSION_ENDS.set(limiter)
        return limiter


def _end(session: Session, commit: bool) -> None:
    try:
        if commit:
            session.commit()
        else:
            session.rollback()
    finally:
        session.close()


ContextDep = Annotated[WebContext, Depends(get_context)]
SessionDep = Annotated[Session, Depends(get_session)]
