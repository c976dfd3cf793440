"""Live ingest and backfill: read arXiv and Hugging Face, store what they say, log each source.

The use case behind ``paperboy ingest``, ``paperboy backfill`` and the first step of the
daily and signals jobs. Each source, category and day yields one :class:`RunReport` (also
written to the ingest log); the report's outcome is the worst of them: a failed source fails
it, a partial or stale one makes it a warning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import IngestRunStatus
from app.services.reports import Failure, Outcome
from ingest.backfill import backfill as harvest
from ingest.backfill import cross_check
from ingest.live import Context, close, enrich_day, ingest_hf, ingest_rss, make_context
from ingest.live_store import latest_listing_day
from ingest.run_log import RunReport, exit_code, save_reports


class Source(StrEnum):
    RSS = "rss"
    API = "api"
    OAI = "oai"
    HF = "hf"
    ALL = "all"


@dataclass(frozen=True)
class IngestReport:
    sources: tuple[RunReport, ...]

    @property
    def outcome(self) -> Outcome:
        return Outcome.of_exit_code(exit_code(self.sources))

    @property
    def failure(self) -> Failure | None:
        failed = [
            report.line() for report in self.sources if report.status is IngestRunStatus.FAILED
        ]
        return Failure("SourceFailed", "\n".join(failed)) if failed else None

    def lines(self) -> list[str]:
        return [report.line() for report in self.sources]


def ingest(
    settings: Settings,
    sessions: sessionmaker[Session],
    now: datetime,
    *,
    source: Source = Source.ALL,
    day: date | None = None,
    categories: tuple[str, ...] | None = None,
) -> IngestReport:
    """Read ``source`` for ``day`` (None: the latest announcement)."""
    chosen = categories or settings.categories
    return _run(settings, sessions, lambda context: _read(context, source, chosen, day, now))


def backfill(
    settings: Settings,
    sessions: sessionmaker[Session],
    from_day: date,
    until_day: date,
    categories: tuple[str, ...] | None = None,
) -> IngestReport:
    """Harvest ``from_day``..``until_day`` (both inclusive) from OAI-PMH, per category."""
    chosen = categories or settings.categories
    return _run(settings, sessions, lambda context: harvest(context, chosen, from_day, until_day))


def _run(
    settings: Settings,
    sessions: sessionmaker[Session],
    read: Callable[[Context], list[RunReport]],
) -> IngestReport:
    context = make_context(settings, _engine(sessions))
    try:
        reports = read(context)
    finally:
        close(context)
    save_reports(context.sessions, reports)
    return IngestReport(tuple(reports))


def _engine(sessions: sessionmaker[Session]) -> Engine:
    # The politeness gate shares its clock between processes through the engine's database.
    bind = sessions.kw.get("bind")
    if not isinstance(bind, Engine):
        raise TypeError("ingest needs a session factory bound to an engine")
    return bind


def _read(
    context: Context,
    source: Source,
    categories: tuple[str, ...],
    day: date | None,
    now: datetime,
) -> list[RunReport]:
    reports: list[RunReport] = []
    if source in (Source.RSS, Source.ALL):
        reports += ingest_rss(context, categories, day)
        day = day or max((r.announced_on for r in reports if r.announced_on), default=None)
    target = day or _latest_listing_day(context) or now.date()
    if source in (Source.API, Source.ALL):
        reports += enrich_day(context, target, categories)
    if source == Source.OAI:
        reports += cross_check(context, categories, target)
    if source in (Source.HF, Source.ALL):
        reports += ingest_hf(context, target)
    return reports


def _latest_listing_day(context: Context) -> date | None:
    """Without a day, API and HF work on the newest day a listing is stored for."""
    with session_scope(context.sessions) as session:
        return latest_listing_day(session)
