"""Operations endpoints: ``/readyz`` (ready to serve), ``/status`` (the operator's page, also
as JSON) and ``/metrics`` (Prometheus text format). ``/healthz`` (alive) is in ``app/web/app``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from app.core.db_faults import connection_lost
from app.core.schema import current_revision, head_revision
from app.core.wal import StandbyState, format_position, usable
from app.services.search import SearchPlace
from app.services.status import Status, gather
from app.web.context import ContextDep, SessionDep, WebContext
from app.web.database_file import DatabaseFile
from app.web.errors import retry_later
from app.web.page_views import status_page

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
        away = isinstance(error, DBAPIError) and connection_lost(error)
        return JSONResponse(body, status_code=503, headers=retry_later() if away else None)
    if current != head:
        stale = {"status": "schema out of date", "schema": current, "head": head}
        return JSONResponse(stale, status_code=503)
    return JSONResponse({"status": "ready", "schema": current})


@router.get("/status", response_class=HTMLResponse)
def status_html(context: ContextDep, session: SessionDep) -> HTMLResponse:
    status = gather(session, context.settings, context.clock())
    page = status_page(status, _replicas(context), context.settings.replica_max_lag_seconds)
    body = context.render("pages/status.html", page)
    # 503 when something needs the operator, so an uptime checker can watch this page too.
    return HTMLResponse(body, status_code=200 if status.healthy else 503)


@router.get("/status.json")
def status_json(context: ContextDep, session: SessionDep) -> JSONResponse:
    status = gather(session, context.settings, context.clock())
    body = _as_json(status) | {"replicas": [_replica_json(state) for state in _replicas(context)]}
    return JSONResponse(body, status_code=200 if status.healthy else 503)


@router.get("/metrics", response_class=PlainTextResponse)
def metrics(context: ContextDep, session: SessionDep) -> PlainTextResponse:
    status = gather(session, context.settings, context.clock())
    text = prometheus_text(status, _replicas(context), context.settings.replica_max_lag_seconds)
    return PlainTextResponse(text, media_type="text/plain; version=0.0.4")


def _replicas(context: WebContext) -> list[StandbyState]:
    return [] if context.replicas is None else context.replicas.states()


def prometheus_text(
    status: Status, replicas: Sequence[StandbyState] = (), max_lag_seconds: float = 0.0
) -> str:
    """Prometheus text format, every metric with its HELP and TYPE. A job that never succeeded
    has no last-success sample (a 0 would read as 1970): ``job_never_succeeded`` says so."""
    metrics = (
        _stored_and_job_metrics(status)
        + _state_metrics(status)
        + _replica_metrics(replicas, max_lag_seconds)
    )
    lines = [line for metric in metrics for line in _metric_lines(*metric)]
    return "\n".join(lines) + "\n"


Metric = tuple[str, str, list[tuple[str, float]]]


def _stored_and_job_metrics(status: Status) -> list[Metric]:
    jobs = status.jobs
    return [
        (
            "items",
            "Stored items by kind.",
            [(_label("kind", name), value) for name, value in status.counts.items()],
        ),
        (
            "job_last_success_timestamp_seconds",
            "Unix time of each job's last ok run.",
            [(_label("job", j.name), j.last_success.timestamp()) for j in jobs if j.last_success],
        ),
        (
            "job_never_succeeded",
            "1 if the job has no ok run yet.",
            [(_label("job", j.name), int(j.last_success is None)) for j in jobs],
        ),
        (
            "job_overdue",
            "1 if the job never succeeded although it was due.",
            [(_label("job", j.name), int(j.overdue)) for j in jobs],
        ),
    ]


def _state_metrics(status: Status) -> list[Metric]:
    return [
        (
            "open_incidents",
            "Open incidents nobody acknowledged.",
            [("", len(status.unacknowledged))],
        ),
        (
            "acknowledged_incidents",
            "Open incidents an operator acknowledged.",
            [("", len(status.acknowledged))],
        ),
        (
            "edition_published",
            "1 if the newest announcement day's edition is published.",
            [("", int(status.edition_published))],
        ),
        (
            "data_stale",
            "1 if the newest stored day is older than arXiv's calendar allows.",
            [("", int(status.stale_before is not None))],
        ),
        ("healthy", "1 if the status page has no red line.", [("", int(status.healthy))]),
        (
            "unsent_mail",
            "Mails the outbox keeps that the mail server has not taken yet, by kind.",
            [(_label("kind", kept.kind), kept.count) for kept in status.unsent_mail],
        ),
        (
            "search_in_database",
            "1 if PostgreSQL answers searches (pgvector).",
            [("", int(status.search is SearchPlace.DATABASE))],
        ),
        (
            "search_fallback",
            "1 if PostgreSQL lacks pgvector: each web process searches itself.",
            [("", int(status.search is SearchPlace.FALLBACK))],
        ),
    ]


def _replica_metrics(replicas: Sequence[StandbyState], max_lag: float) -> list[Metric]:
    named = [(_label("replica", state.name), state) for state in replicas]
    seconds = [(n, s.lag_seconds) for n, s in named if s.lag_seconds is not None]
    behind = [(n, float(s.lag_bytes)) for n, s in named if s.lag_bytes is not None]
    return (
        [
            (
                "replica_up",
                "1 if the replica answered its last check.",
                [(n, int(s.up)) for n, s in named],
            ),
            (
                "replica_in_use",
                "1 if reads go to the replica: up, still a standby, not lagging.",
                [(n, int(usable(s, max_lag))) for n, s in named],
            ),
            ("replica_lag_seconds", "How long the replica has been behind the primary.", seconds),
            (
                "replica_lag_bytes",
                "How far the replica's replay is behind the primary's log.",
                behind,
            ),
        ]
        if replicas
        else []
    )


def _replica_json(state: StandbyState) -> dict[str, Any]:
    return _plain(asdict(state)) | {
        "position": None if state.position is None else format_position(state.position)
    }


def _label(name: str, value: str) -> str:
    return f'{{{name}="{value}"}}'


def _metric_lines(name: str, description: str, samples: list[tuple[str, float]]) -> list[str]:
    full = f"paperboy_{name}"
    header = [f"# HELP {full} {description}", f"# TYPE {full} gauge"]
    return header + [f"{full}{labels} {value}" for labels, value in samples]


def _as_json(status: Status) -> dict[str, Any]:
    return {
        "healthy": status.healthy,
        "all_well": status.all_well,
        "never_ran": status.never_ran,
        "offline": status.offline,
        "jobs": [_plain(asdict(job)) for job in status.jobs],
        "latest_day": status.latest_day and status.latest_day.isoformat(),
        "stale_before": status.stale_before and status.stale_before.isoformat(),
        "edition_published": status.edition_published,
        "sources": [_plain(asdict(s)) | {"troubled": s.troubled} for s in status.sources],
        "counts": status.counts,
        "search": status.search.value,
        "unsent_mail": {
            kept.kind.value: {"count": kept.count, "since": kept.since and kept.since.isoformat()}
            for kept in status.unsent_mail
        },
        "incidents": [
            {
                "job": i.key,
                "opened_at": i.opened_at.isoformat(),
                "failures": i.failures,
                "last_error": i.last_error,
                "acknowledged": i.acknowledged_at is not None,
            }
            for i in status.incidents
        ],
    }


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    return {
        key: value.isoformat() if hasattr(value, "isoformat") else value
        for key, value in values.items()
    }
