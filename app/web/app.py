"""The web app's entry point: ``create_app(settings)``, served by uvicorn.

It builds what requests share (sessions, templates, the search index, the rate limiter),
adds the middleware (security headers, rate limit, CORS for read-only cross-origin use, in
production the refusal of any host but the public one, HEAD on every GET route) and includes
one router per area from ``app/web/routes``, and the MCP endpoint ``/mcp``
(``app.web.mcp``). Nothing here loads the embedding model at import:
with semantic search, the app's start loads it (and opens the search index) before it reports
ready, unless ``search_preload`` is off.

As uvicorn's factory (``uvicorn app.web.app:create_app --factory``) it reads the settings itself
and refuses bad settings, a database that turns it down and broken model files in words
(``app/services/preflight``), exiting 1; given settings, it trusts its caller to have checked
them. ``paperboy web`` runs the same check once before it starts uvicorn's workers.
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TypeVar

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, Response
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError, OperationalError, ProgrammingError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.base import BaseHTTPMiddleware

from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.db import make_engine, make_session_factory
from app.core.heap import alive_objects_frozen
from app.core.logs import configure_logging
from app.core.refusals import Refusal
from app.core.schema import current_revision, head_revision
from app.core.settings_check import EXIT_REFUSED
from app.core.tokens import TokenError
from app.services.preflight import web_settings
from app.services.presenting import load_stop_words
from app.services.search import Searcher
from app.web import answers
from app.web.assets import HashedStaticFiles
from app.web.context import WebContext, build_context
from app.web.database_file import DatabaseFile, refuse_writes_to_a_lost_file
from app.web.errors import database_error, http_error, refused, server_error, validation_error
from app.web.forms import FormRefusedError
from app.web.limits import RateLimiter
from app.web.mcp.server import MCP_PATH, build_server, http_routes
from app.web.middleware.hosts import HostMiddleware
from app.web.middleware.request_ids import RequestIdMiddleware
from app.web.middleware.security import SecurityMiddleware
from app.web.preview_drawings import DRAWING_LIMITS, DrawingLimits
from app.web.read_routing import route_reads
from app.web.routes import (
    accuracy,
    api,
    authors,
    discussion,
    docs,
    feeds,
    library,
    mail,
    moderation,
    orcid,
    organizations,
    pages,
    papers,
    people,
    previews,
    radar,
    reader,
    search,
    search_feeds,
    shared_lists,
    site,
    status,
    subscriptions,
    thumbnails,
    topics,
    voting,
)
from app.web.search_turns import SEARCH_LIMITS, SearchLimits

logger = logging.getLogger(__name__)
ROUTERS = (
    # The JSON API first: a request tries each route in this order until one matches, and
    # programs ask often. Each discussion router goes before the router whose catch-all path
    # would take its paths (the API's, the paper page's).
    discussion.api_router,
    api.router,
    discussion.router,
    pages.router,
    papers.router,
    feeds.router,
    search_feeds.router,
    search.router,
    authors.router,
    people.router,
    subscriptions.router,
    voting.router,
    orcid.router,
    mail.router,
    library.router,
    shared_lists.router,
    status.router,
    topics.router,
    docs.router,
    site.router,
    reader.router,
    previews.router,
    organizations.router,
    accuracy.router,
    radar.router,
    moderation.router,
    thumbnails.router,
)


def create_app(
    settings: Settings | None = None,
    clock: Clock = utc_now,
    search_limits: SearchLimits = SEARCH_LIMITS,
    drawing_limits: DrawingLimits = DRAWING_LIMITS,
) -> FastAPI:
    """The app for one deployment; ``clock`` is what its pages take as now (tests freeze it),
    ``search_limits`` how many searches it runs at once and ``drawing_limits`` how many link
    previews it draws (tests make them few)."""
    settings = settings or _factory_settings()
    configure_logging(settings)
    engine = make_engine(settings, role="web")
    app = _fastapi(_lifespan(settings, engine))
    sessions = make_session_factory(engine)
    app.state.web = build_context(settings, sessions, clock, search_limits, drawing_limits)
    _mount_mcp(app)
    app.state.database_file = DatabaseFile.of(engine)
    _route_reads(app, app.state.web)
    _add_middleware(app, settings, app.state.web.limiter)
    _add_error_handlers(app)
    app.mount("/static", HashedStaticFiles(app.state.web.assets), name="static")
    for router in ROUTERS:
        app.include_router(router)

    app.openapi = lambda: docs.honest_openapi(app)  # type: ignore[method-assign]

    @app.get("/healthz", include_in_schema=False)
    def health() -> JSONResponse:
        return _health(engine)

    return app


def _lifespan(
    settings: Settings, engine: Engine
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """Start: the replicas' checks, then a warm search; end: stop them, close the engine."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Again: a server started with an app object (the demo) set its loggers up since.
        configure_logging(settings)
        # In a thread, so the loop stays free; awaited, so "ready" means search is.
        replicas = app.state.web.replicas
        if replicas is not None:  # checked before the first request can come
            await run_in_threadpool(replicas.start)
        await run_in_threadpool(_warm, settings, app.state.web.search)
        if app.state.mcp_ran:  # its session manager runs once: a restarted app needs anew
            _mount_mcp(app)
        app.state.mcp_ran = True
        # Served from here on, what is loaded stays: collections need not walk it again.
        with alive_objects_frozen():
            async with app.state.mcp.session_manager.run():
                yield
        if replicas is not None:
            replicas.stop()
        app.state.web.previews.close()
        engine.dispose()

    return lifespan


def _mount_mcp(app: FastAPI) -> None:
    """The MCP server and its ``/mcp`` routes, in place of any the app held before."""
    app.state.mcp = build_server(app.state.web)
    app.state.mcp_ran = False
    kept = [route for route in app.router.routes if getattr(route, "path", None) != MCP_PATH]
    app.router.routes[:] = [*kept, *http_routes(app.state.mcp)]


def _fastapi(lifespan: Callable[[FastAPI], AbstractAsyncContextManager[None]]) -> FastAPI:
    return FastAPI(
        title="Paperboy",
        summary="The day's trending arXiv papers: pages, a JSON API in HF's shape, feeds.",
        docs_url=None,  # app.web.routes.docs serves /api/docs without a CDN or inline script
        openapi_url="/api/openapi.json",
        redoc_url=None,
        # No 307 to the slash-less path: its Location would be built from the Host header.
        redirect_slashes=False,
        lifespan=lifespan,
        dependencies=[Depends(refuse_writes_to_a_lost_file)],
    )


def _warm(settings: Settings, search: Searcher) -> None:
    if not settings.search_preload:
        return
    load_stop_words()  # the API's key phrases: their stop list imports scikit-learn (slow)
    if not settings.search_semantic:
        return
    try:
        search.warm()
    except Exception:  # the site serves without it: search loads on first use
        logger.exception("search could not be warmed up; it loads on the first search instead")


def _factory_settings() -> Settings:
    settings = web_settings()
    if settings is None:
        raise SystemExit(EXIT_REFUSED)  # the lines above say why; no traceback
    return settings


def _route_reads(app: FastAPI, context: WebContext) -> None:
    """With standbys: revalidations built afresh, a reader's writes remembered (innermost)."""
    if context.replicas is not None:
        remember = route_reads(
            context.replicas, _read_your_writes(context.settings), context.secure_cookies
        )
        app.add_middleware(BaseHTTPMiddleware, dispatch=remember)


def _read_your_writes(settings: Settings) -> int:
    """Seconds a writer's reads wait for their write: at least as long as a standby may be
    behind, plus one check, since it may be chosen on the strength of a check that old."""
    longest = settings.replica_max_lag_seconds + settings.replica_check_seconds
    return max(settings.read_your_writes_seconds, math.ceil(longest))


def _add_middleware(app: FastAPI, settings: Settings, limiter: RateLimiter) -> None:
    # Innermost; it compresses too, reading the answer's final Cache-Control to know whether
    # it may.
    app.add_middleware(SecurityMiddleware, limiter=limiter, settings=settings)
    # Outside the rate limit, so that even a 429 carries CORS headers a browser client can read.
    app.add_middleware(
        CORSMiddleware,
        allow_origins=["*"],
        allow_methods=["GET", "HEAD", "OPTIONS"],
        allow_headers=["If-None-Match", "If-Modified-Since"],
        expose_headers=["ETag", "Last-Modified", "Retry-After", "X-Total-Count", "Link"],
        max_age=86400,
    )
    if settings.env == "production":
        # Outside the rest, so that another host's request reaches nothing; CORS included.
        app.add_middleware(HostMiddleware, settings=settings)
    # Outermost: a refused host's answer has an id too, and every line it logs; everything
    # inside serves a HEAD as the GET it mirrors (app.web.middleware.request_ids).
    app.add_middleware(RequestIdMiddleware)


AnsweredError = TypeVar("AnsweredError", bound=Exception)


def _answering(
    kind: type[AnsweredError], answer: Callable[[Request, AnsweredError], Response]
) -> Callable[[Request, Exception], Awaitable[Response]]:
    """An exception handler for ``kind``: Starlette passes every handler a bare Exception."""

    async def handle(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, kind)
        return answer(request, exc)

    return handle


def _refused_link(request: Request, exc: TokenError) -> Response:
    return answers.refused_link(request, request.app.state.web, exc)


def _refused_form(request: Request, exc: FormRefusedError) -> Response:
    return answers.refused_form(request, request.app.state.web, exc.why)


def _add_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(
        StarletteHTTPException, _answering(StarletteHTTPException, http_error)
    )
    # Whatever the domain, a use case or a parameter refuses: its meaning's status.
    app.add_exception_handler(Refusal, _answering(Refusal, refused))
    # A signed link or a form that does not hold, wherever a page checks it: one refusal page.
    app.add_exception_handler(TokenError, _answering(TokenError, _refused_link))
    app.add_exception_handler(FormRefusedError, _answering(FormRefusedError, _refused_form))
    app.add_exception_handler(
        RequestValidationError, _answering(RequestValidationError, validation_error)
    )
    on_database = _answering(DBAPIError, database_error)
    # SQLite reports a missing table as OperationalError, PostgreSQL as ProgrammingError.
    app.add_exception_handler(OperationalError, on_database)
    app.add_exception_handler(ProgrammingError, on_database)
    # A server gone away may surface as any driver error (a connection cut mid-result).
    app.add_exception_handler(DBAPIError, on_database)
    # Answered outside every middleware (uvicorn logs the traceback after): carries the id.
    app.add_exception_handler(
        Exception, _answering(Exception, lambda request, _: server_error(request))
    )


def _health(engine: Engine) -> JSONResponse:
    current, head = current_revision(engine), head_revision(engine)
    healthy = current == head
    body = {"status": "ok" if healthy else "schema out of date", "schema": current, "head": head}
    return JSONResponse(body, status_code=200 if healthy else 503)
