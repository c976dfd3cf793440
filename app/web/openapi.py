"""The OpenAPI document as the server really answers (``/api/openapi.json``).

FastAPI documents a 422 ``{"detail": …}`` on every route with parameters; Paperboy answers a
bad parameter with 400 and ``{"error": {…}}`` (``app.web.errors``), which each route declares
itself. This removes the 422s and the validation-error schemas nothing refers to then.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

FASTAPI_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")


def honest_openapi(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI document without FastAPI's undelivered 422 answers (built once)."""
    if app.openapi_schema is None:
        document = get_openapi(
            title=app.title,
            version=app.version,
            summary=app.summary,
            description=app.description,
            routes=app.routes,
        )
        app.openapi_schema = without_validation_errors(document)
    return app.openapi_schema


def without_validation_errors(document: dict[str, Any]) -> dict[str, Any]:
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            operation.get("responses", {}).pop("422", None)
    schemas = document.get("components", {}).get("schemas", {})
    for name in FASTAPI_VALIDATION_SCHEMAS:
        schemas.pop(name, None)
    return document
