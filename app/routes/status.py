"""Operations endpoints: ``/readyz`` (ready to serve), ``/status`` (the operator's page, also
as JSON) and ``/metrics`` (Prometheus text format). ``/healthz`` (alive) is in ``app/main``."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from app.jobs.status import Status, gather
from app.schema import current_revision, head_revision
from app.web.context import ContextDep, SessionDep
from app.web.database_file import DatabaseFile

router = APIRouter(include_in_schema=False)


@router.get("/readyz")
def ready(request: Request, context: ContextDep) -> JSONResponse:
    """Ready when the database answers, its schema is at the newest migration and (SQLite) its
    file is still the one this process opened."""
    watched: DatabaseFile = request.app.state.database_file
    trouble = watched.trouble()
    if trouble is not None:
        lost = {"status": trouble.value, "error": watched.explain(trouble)}
        return JSONResponse(lost, status_code=503)
    engine = context.sessions.kw["bind"]
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        current, head = current_revision(engine), head_revision(engine)
    except SQLAlchemyError as error:
        body = {"status": "database unreachable", "error": type(error).__name__}
        return JSONResponse(body, status_code=503)
    if current != head:
        stale = {"status": "schema out of date", "schema": current, "head": head}
        return JSONResponse(stale, status_code=503)
    return JSONResponse({"status": "ready", "schema": current})


@router.get("/status", response_class=HTMLResponse)
def status_page(request: Request, context: ContextDep, session: SessionDep) -> HTMLResponse:
    status = gather(session, context.settings, datetime.now(UTC))
    page = {"status": status, "request": request, "utc": UTC}
    body = context.render("pages/status.html", page)
    # 503 when something needs the operator, so an uptime checker can watch this page too.
    return HTMLResponse(body, status_code=200 if status.healthy else 503)


@router.get("/status.json")
def status_json(context: ContextDep, session: SessionDep) -> JSONResponse:
    status = gather(session, context.settings, datetime.now(UTC))
    return JSONResponse(_as_json(status), status_code=200 if status.healthy else 503)


@router.get("/metrics", response_class=PlainTextResponse)
def metrics(context: ContextDep, session: SessionDep) -> PlainTextResponse:
    status = gather(session, context.settings, datetime.now(UTC))
    return PlainTextResponse(prometheus_text(status), media_type="text/plain; version=0.0.4")


def prometheus_text(status: Status) -> str:
    lines = ["# TYPE paperboy_items gauge"]
    lines += [f'paperboy_items{{kind="{name}"}} {value}' for name, value in status.counts.items()]
    lines.append("# TYPE paperboy_job_last_success_timestamp_seconds gauge")
    for job in status.jobs:
        seconds = job.last_success.timestamp() if job.last_success else 0
        lines.append(f'paperboy_job_last_success_timestamp_seconds{{job="{job.name}"}} {seconds}')
    lines.append("# TYPE paperboy_open_incidents gauge")
    lines.append(f"paperboy_open_incidents {len(status.incidents)}")
    lines.append("# TYPE paperboy_edition_published gauge")
    lines.append(f"paperboy_edition_published {int(status.edition_published)}")
    return "\n".join(lines) + "\n"


def _as_json(status: Status) -> dict[str, Any]:
    return {
        "healthy": status.healthy,
        "jobs": [_plain(asdict(job)) for job in status.jobs],
        "latest_day": status.latest_day and status.latest_day.isoformat(),
        "edition_published": status.edition_published,
        "sources": [_plain(asdict(s)) | {"troubled": s.troubled} for s in status.sources],
        "counts": status.counts,
        "incidents": [
            {"job": i.key, "opened_at": i.opened_at.isoformat(), "failures": i.failures,
             "last_error": i.last_error}
            for i in status.incidents
        ],
    }  # fmt: skip


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value.isoformat() if hasattr(value, "isoformat") else value
            for key, value in values.items()}  # fmt: skip
