"""The interactive API docs at ``/api/docs``: Swagger UI served by Paperboy itself.

FastAPI's own page loads Swagger UI from a CDN and starts it with an inline script, which the
site's Content-Security-Policy forbids. This page loads Swagger UI 5 (the first to read OpenAPI
3.1, which FastAPI writes) from ``/swagger-ui/``, files the ``fastapi-offline`` package ships,
and starts it with ``/static/api-docs.js``: it works offline and under the same strict policy
as every other page. Only the files are used, not the package's FastAPI subclass.

The OpenAPI document as the server really answers (``/api/openapi.json``).

FastAPI documents a 422 ``{"detail": …}`` on every route with parameters; Paperboy answers a
bad parameter with 400 and ``{"error": {…}}`` (``app.web.errors``), which each route declares
itself. This removes the 422s and the validation-error schemas nothing refers to then.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import fastapi_offline
from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse

from app.web.caching import cached

router = APIRouter(include_in_schema=False)
ASSETS = Path(fastapi_offline.__file__).parent / "static"
MEDIA_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
Asset = Literal["swagger-ui.css", "swagger-ui-bundle.js"]
OPENAPI_URL = "/api/openapi.json"
ONE_DAY = "public, max-age=86400"
DESCRIPTION = (
    "Paperboy's JSON API: trending arXiv papers by day, week and month, search, topics and "
    "authors, in the shape of Hugging Face's Daily Papers API."
)
PAGE = f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Paperboy API</title>
  <meta name="description" content="{DESCRIPTION}">
  <link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/swagger-ui/swagger-ui.css">
  <link rel="stylesheet" href="/static/api-docs.css">
  <script src="/swagger-ui/swagger-ui-bundle.js" defer></script>
  <script src="/static/api-docs.js" defer></script>
</head>
<body>
  <header class="api-docs-header">
    <h1>Paperboy API</h1>
    <p>{DESCRIPTION}</p>
    <p><a href="/">Back to the trending papers</a> · the OpenAPI document:
      <a href="{OPENAPI_URL}">{OPENAPI_URL}</a></p>
    <h2>Operations</h2>
  </header>
  <main id="swagger-ui" data-openapi="{OPENAPI_URL}">
    <p>This page needs JavaScript to draw the operations.</p>
  </main>
</body>
</html>
""".encode()


@router.get("/api/docs")
def docs(request: Request) -> Response:
    return cached(request, PAGE, "text/html; charset=utf-8")


@router.get("/swagger-ui/{asset}")
def asset(asset: Asset) -> FileResponse:
    """Swagger UI's two files (any other name is a 400: nothing else of the package is served)."""
    path = ASSETS / asset
    return FileResponse(
        path,
        media_type=MEDIA_TYPES[path.suffix],
        headers={"Cache-Control": "public, max-age=86400"},
    )


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
