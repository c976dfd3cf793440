"""The ingest log of live sources: one report per source, category and announcement date.

Statuses (also in ``docs/ingest.md``):

* ``ok`` — read and stored.
* ``unchanged`` — the server said the feed has not changed since the last run (HTTP 304).
* ``empty`` — the source had nothing for this category and day.
* ``smaller`` — the source listed fewer papers than already stored for the day; the stored
  listing is kept whole.
* ``stale`` — the source served an older day than another category already has.
* ``partial`` — stored, but some items were rejected (the error says which).
* ``failed`` — the source could not be read; what was stored before stays stored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from sqlalchemy.orm import Session, sessionmaker

from app.core.db import session_scope
from app.core.models import IngestRun, IngestRunStatus

COUNTS = ("read", "new", "cross", "replaced", "updated", "enriched", "unchanged", "rejected")
# Worse statuses win when one report collects several findings.
_SEVERITY = (
    IngestRunStatus.OK,
    IngestRunStatus.UNCHANGED,
    IngestRunStatus.EMPTY,
    IngestRunStatus.SMALLER,
    IngestRunStatus.STALE,
    IngestRunStatus.PARTIAL,
    IngestRunStatus.FAILED,
)
_EXIT_CODES = {IngestRunStatus.FAILED: 1, IngestRunStatus.PARTIAL: 2, IngestRunStatus.STALE: 2}


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass
class RunReport:
    source: str
    category: str | None = None
    announced_on: date | None = None
    status: IngestRunStatus = IngestRunStatus.OK
    counts: Counter[str] = field(default_factory=Counter)
    error: str | None = None
    detail: str | None = None
    started_at: datetime = field(default_factory=_now)

    def escalate(self, status: IngestRunStatus, note: str | None = None) -> None:
        """Raise the status to ``status`` if that is worse; keep every note."""
        if _SEVERITY.index(status) > _SEVERITY.index(self.status):
            self.status = status
        if note:
            self.error = f"{self.error}\n{note}" if self.error else note

    def line(self) -> str:
        where = " ".join(str(part) for part in (self.category, self.announced_on) if part)
        counts = ", ".join(f"{name} {self.counts[name]}" for name in COUNTS if self.counts[name])
        text = f"{self.source} {where}: {self.status}" + (f" ({counts})" if counts else "")
        return f"{text}; {self.error}" if self.error else text


def exit_code(reports: Iterable[RunReport]) -> int:
    """0 when all went well, 1 when a source failed, 2 when one was partial or stale."""
    codes = [_EXIT_CODES.get(report.status, 0) for report in reports]
    return 1 if 1 in codes else max(codes, default=0)


def save_reports(sessions: sessionmaker[Session], reports: Iterable[RunReport]) -> None:
    """Write the reports in their own transaction, so a failed run is logged too."""
    with session_scope(sessions) as session:
        session.add_all(_row(report) for report in reports)


def _row(report: RunReport) -> IngestRun:
    counts = {f"{name}_count": report.counts[name] for name in COUNTS}
    return IngestRun(
        source=report.source,
        category=report.category,
        announced_on=report.announced_on,
        detail=report.detail,
        status=report.status,
        started_at=report.started_at,
        finished_at=_now(),
        error=report.error,
        **counts,
    )
