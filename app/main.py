"""The web app's entry point: ``create_app(settings)``, served by uvicorn.

Pages and the JSON API arrive with their own issue; for now the app answers a health check
that tells whether the database is reachable and migrated, which the Dockerfile uses.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from sqlalchemy import Engine

from app.config import Settings, get_settings
from app.db import make_engine
from app.schema import current_revision, head_revision


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    engine = make_engine(settings, role="web")

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        engine.dispose()

    app = FastAPI(title="Paperboy", docs_url="/api/docs", redoc_url=None, lifespan=lifespan)

    @app.get("/healthz", include_in_schema=False)
    def health() -> JSONResponse:
        return _health(engine)

    return app


def _health(engine: Engine) -> JSONResponse:
    current, head = current_revision(engine), head_revision(engine)
    healthy = current == head
    body = {"status": "ok" if healthy else "schema out of date", "schema": current, "head": head}
    return JSONResponse(body, status_code=200 if healthy else 503)
