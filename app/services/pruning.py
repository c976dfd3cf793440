"""The nightly ``prune`` job: the rows that would otherwise grow for ever go once they are
older than their retention (``PAPERBOY_OUTBOX_RETENTION_DAYS``,
``PAPERBOY_JOB_RUN_RETENTION_DAYS``): mails the outbox sent or gave up, and finished job
runs (the ``mail`` job alone records one a minute). A mail still waiting for the server, a
run still going, and each job's newest run and newest success stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.services.jobs import runs
from app.services.reports import Completed
from digest.mail import outbox


@dataclass(frozen=True)
class PruneReport(Completed):
    """How many rows one run deleted."""

    mails: int
    runs: int

    def lines(self) -> list[str]:
        return [f"prune: {self.mails} old mails and {self.runs} old job runs deleted"]


def prune_old_rows(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, _day: date | None = None
) -> PruneReport:
    """Delete what is older than its retention at ``now``."""
    mails_before = now - timedelta(days=settings.outbox_retention_days)
    runs_before = now - timedelta(days=settings.job_run_retention_days)
    with session_scope(sessions) as session:
        mails = outbox.prune(session, mails_before)
        pruned_runs = runs.prune(session, runs_before)
    return PruneReport(mails=mails, runs=pruned_runs)
