"""Errors as the caller can read them: JSON under /api and /feeds, an HTML page elsewhere.

A database without Paperboy's tables (never migrated, or behind the code) answers 503 with the
command that fixes it, rather than a bare 500 from the first query.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException

from app.web.context import WebContext
from app.web.page_views import error_page

MACHINE_PREFIXES = ("/api/", "/feeds/")
SCHEMA_MISSING = "the database schema is missing or out of date; run `paperboy migrate`"
# PostgreSQL's SQLSTATEs for an undefined table and column; SQLite says it in words.
UNDEFINED_OBJECT_STATES = frozenset({"42P01", "42703"})
SQLITE_UNDEFINED = ("no such table", "no such column")


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


def is_schema_missing(error: DBAPIError) -> bool:
    """Whether the database lacks a table or column Paperboy's queries use."""
    state = getattr(error.orig, "sqlstate", None)
    return state in UNDEFINED_OBJECT_STATES or str(error.orig).startswith(SQLITE_UNDEFINED)


def database_error(request: Request, error: DBAPIError) -> Response:
    """503 with what to run for a missing schema; any other database error stays a 500."""
    if not is_schema_missing(error):
        raise error
    return http_error(request, HTTPException(503, SCHEMA_MISSING))
