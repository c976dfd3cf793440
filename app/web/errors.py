"""Errors as the caller can read them: JSON under /api, /feeds and a search's feeds
(/search/feed.*), an HTML page elsewhere.

A database without Paperboy's tables (never migrated, or behind the code) answers 503 with the
command that fixes it, rather than a bare 500 from the first query. A database server that went
away (a restart, a failover) answers 503 with ``Retry-After`` until it is back: the engine's
pre-ping replaces the dead connections then, so nothing needs restarting.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException

from app.core.db_faults import connection_lost
from app.core.refusals import (
    BadChoice,
    BadInput,
    Busy,
    Conflict,
    Limited,
    NotFound,
    Refusal,
    Refused,
)
from app.web.context import WebContext
from app.web.middleware.request_ids import HEADER as REQUEST_ID_HEADER
from app.web.middleware.request_ids import current_request_id
from app.web.page_views import error_page

# Read by programs (API clients, feed readers), which get their errors as JSON.
MACHINE_PREFIXES = ("/api/", "/feeds/", "/search/feed.")
SCHEMA_MISSING = "the database schema is missing or out of date; run `paperboy migrate`"
DATABASE_AWAY = "the database is not answering (restarting or failing over); try again shortly"
# About as long as a PostgreSQL restart: a client back after this long mostly finds it done.
DATABASE_RETRY_SECONDS = 10
# Probes read the status code; their answer is one line of text.
PROBE_PATHS = frozenset({"/healthz", "/readyz"})
# PostgreSQL's SQLSTATEs for an undefined table and column; SQLite says it in words.
UNDEFINED_OBJECT_STATES = frozenset({"42P01", "42703"})
SQLITE_UNDEFINED = ("no such table", "no such column")
# Each meaning of a refusal (``app.core.refusals``) answers one status, whoever refuses.
REFUSAL_STATUS: dict[type[Refusal], int] = {
    NotFound: 404,
    BadChoice: 422,
    BadInput: 400,
    Refused: 403,
    Conflict: 409,
    Limited: 429,
    Busy: 503,
}


def wants_json(request: Request) -> bool:
    return request.url.path.startswith(MACHINE_PREFIXES)


def error_json(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"status": status, "message": message}}, status, headers)


def http_error(request: Request, exc: HTTPException) -> Response:
    message = str(exc.detail)
    if wants_json(request):
        return error_json(exc.status_code, message, exc.headers)
    context: WebContext = request.app.state.web
    page = error_page(exc.status_code, message)
    return context.respond(request, "pages/error.html", page, exc.status_code, exc.headers)


def validation_error(request: Request, exc: RequestValidationError) -> Response:
    problems = "; ".join(_describe(error) for error in exc.errors())
    if wants_json(request):
        return error_json(400, problems)
    return http_error(request, HTTPException(400, problems))


def _describe(error: dict[str, object]) -> str:
    where = error.get("loc", ())
    name = where[-1] if isinstance(where, (list, tuple)) and where else "input"
    return f"{name}: {error.get('msg', 'invalid')}"


def refusal_status(refusal: Refusal) -> int:
    """The status of the refusal's nearest meaning (a plain :class:`Refusal`: 400)."""
    for kind in type(refusal).__mro__:
        if kind in REFUSAL_STATUS:
            return REFUSAL_STATUS[kind]
    return 400


def refused(request: Request, refusal: Refusal) -> Response:
    """A refusal answered with its meaning's status and its message; a wait it names is
    the ``Retry-After``."""
    wait = refusal.retry_after if isinstance(refusal, Limited | Busy) else None
    headers = None if wait is None else {"Retry-After": str(wait)}
    return http_error(request, HTTPException(refusal_status(refusal), str(refusal), headers))


def is_schema_missing(error: DBAPIError) -> bool:
    """Whether the database lacks a table or column Paperboy's queries use."""
    state = getattr(error.orig, "sqlstate", None)
    return state in UNDEFINED_OBJECT_STATES or str(error.orig).startswith(SQLITE_UNDEFINED)


def database_error(request: Request, error: DBAPIError) -> Response:
    """503 while the database server is away, or with what to run for a missing schema; any
    other database error stays a 500."""
    if connection_lost(error):
        return database_away(request)
    if not is_schema_missing(error):
        raise error
    return http_error(request, HTTPException(503, SCHEMA_MISSING))


def retry_later() -> dict[str, str]:
    return {"Retry-After": str(DATABASE_RETRY_SECONDS)}


def database_away(request: Request) -> Response:
    """503 and when to try again: JSON for machines, the error page for people, a line for
    probes."""
    if request.url.path in PROBE_PATHS:
        return PlainTextResponse(DATABASE_AWAY, 503, retry_later())
    return http_error(request, HTTPException(503, DATABASE_AWAY, retry_later()))


def server_error(request: Request) -> Response:
    """500 for what nothing else answered, with the request's id: the key to its log lines.

    Plain, not the site's page: that page reads the database, which may be what failed.
    """
    request_id = current_request_id()
    headers = {REQUEST_ID_HEADER: request_id} if request_id else None
    if wants_json(request):
        return error_json(500, "internal server error", headers)
    return PlainTextResponse("Internal Server Error", 500, headers)
