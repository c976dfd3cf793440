"""Errors as the caller can read them: JSON under /api and /feeds, an HTML page elsewhere."""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from app.web.context import WebContext

MACHINE_PREFIXES = ("/api/", "/feeds/")


def wants_json(request: Request) -> bool:
    return request.url.path.startswith(MACHINE_PREFIXES)


def error_json(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"status": status, "message": message}}, status, headers)


def http_error(request: Request, exc: HTTPException) -> Response:
    message = str(exc.detail)
    if wants_json(request):
        return error_json(exc.status_code, message, exc.headers)
    context: WebContext = request.app.state.web
    return context.templates.TemplateResponse(
        request,
        "pages/error.html",
        {"status": exc.status_code, "message": message},
        status_code=exc.status_code,
        headers=exc.headers,
    )


def validation_error(request: Request, exc: RequestValidationError) -> Response:
    problems = "; ".join(_describe(error) for error in exc.errors())
    if wants_json(request):
        return error_json(400, problems)
    return http_error(request, HTTPException(400, problems))


def _describe(error: dict[str, object]) -> str:
    where = error.get("loc", ())
    name = where[-1] if isinstance(where, (list, tuple)) and where else "input"
    return f"{name}: {error.get('msg', 'invalid')}"
