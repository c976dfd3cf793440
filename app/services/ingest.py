"""Live ingest and backfill: read arXiv and Hugging Face, store what they say, log each source.

The use case behind ``paperboy ingest``, ``paperboy backfill`` and the first step of the
daily and signals jobs; and behind ``paperboy import-hf-signals``, which stores Hugging Face
signals from flattened record files (:func:`import_hf_signals`). Each source, category and day
of live ingest yields one :class:`RunReport` (also written to the ingest log); the report's
outcome is the worst of them: a failed source fails it, a partial or stale one makes it a
warning.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import IngestRunStatus
from app.services.reports import Failure, Outcome, worst
from ingest.hf_daily import StoredSignals, store_signals
from ingest.hf_records import SignalFile, read_signal_file
from ingest.live import (
    Context,
    RunReport,
    close,
    enrich_day,
    exit_code,
    ingest_hf,
    ingest_rss,
    make_context,
    save_reports,
)
from ingest.live_writes import latest_listing_day
from ingest.oai import backfill as harvest
from ingest.oai import cross_check
from ingest.records import arxiv_categories as arxiv_categories


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
    context = make_context(settings, engine_of(sessions))
    try:
        reports = read(context)
    finally:
        close(context)
    save_reports(context.sessions, reports)
    return IngestReport(tuple(reports))


def engine_of(sessions: sessionmaker[Session]) -> Engine:
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


# A file's rejected lines listed in a report; the rest are counted.
MAX_LISTED_REJECTIONS = 20


@dataclass(frozen=True)
class SignalImportReport:
    """What importing Hugging Face record files did: each file as read, and what was stored."""

    files: tuple[SignalFile, ...]
    stored: StoredSignals

    @property
    def outcome(self) -> Outcome:
        """Failed when a file could not be read to its end; a warning when lines were rejected."""
        return worst(_file_outcome(read) for read in self.files)

    @property
    def failure(self) -> Failure | None:
        unread = [f"{read.path}: {read.error}" for read in self.files if read.error]
        return Failure("UnreadableFile", "\n".join(unread)) if unread else None

    def lines(self) -> list[str]:
        stored, rejected = self.stored, sum(len(read.rejected) for read in self.files)
        return [line for read in self.files for line in _file_lines(read)] + [
            f"hf signals: new {stored.new}, filled {stored.updated}, "
            f"unchanged {stored.unchanged}, rejected {rejected}"
        ]


def import_hf_signals(sessions: sessionmaker[Session], paths: Sequence[Path]) -> SignalImportReport:
    """Store the signals of every file in one unit of work, as an import of older records:
    rows already stored keep their values and only gain the fields they lack. A bad line is
    reported and skipped; so is the rest of a file that cannot be read to its end."""
    files = tuple(read_signal_file(path) for path in paths)
    with session_scope(sessions) as session:
        stored = store_signals(
            session, [signal for read in files for signal in read.signals], fill_only=True
        )
    return SignalImportReport(files, stored)


def _file_outcome(read: SignalFile) -> Outcome:
    if read.error:
        return Outcome.FAILED
    return Outcome.WARNING if read.rejected else Outcome.OK


def _file_lines(read: SignalFile) -> list[str]:
    lines = [f"{read.path}: read {len(read.signals)}, rejected {len(read.rejected)}"]
    lines += [
        f"{read.path}:{r.line}: rejected: {r.reason}" for r in read.rejected[:MAX_LISTED_REJECTIONS]
    ]
    if len(read.rejected) > MAX_LISTED_REJECTIONS:
        lines.append(f"... and {len(read.rejected) - MAX_LISTED_REJECTIONS} more rejected lines")
    if read.error:
        lines.append(f"{read.path}: {read.error}")
    return lines
