"""The day's chain, ingest → embed → rank → publish: the daily job and ``paperboy run-daily``.

Each step is its own unit of work. A failed ingest stops the chain (nothing is published from
a day that failed to arrive); a partial or stale one lets it go on and makes the outcome a
warning. Unusable ranking input (:class:`RankingInputError`) stops it as a failure, keeping
what the earlier steps stored.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime

from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.services import editions
from app.services.editions import EditionsReport, EmbedReport, Progress, RankReport, no_progress
from app.services.ingest import IngestReport, ingest
from app.services.reports import Failure, Outcome, worst
from ingest.live_store import latest_listing_day
from ranking.errors import RankingInputError

NOTHING_STORED = "daily: no announcement stored yet; nothing to rank"
INGEST_FAILED = "daily: ingest failed; nothing ranked or published"


@dataclass(frozen=True)
class DailyReport:
    # None when the chain was told to rank what is stored.
    ingest: IngestReport | None
    # The day ranked: None when no announcement is stored (or ingest failed).
    day: date | None = None
    embedded: EmbedReport | None = None
    ranked: RankReport | None = None
    published: EditionsReport | None = None
    ranking_failure: Failure | None = None

    @property
    def ingest_failed(self) -> bool:
        return self.ingest is not None and self.ingest.outcome is Outcome.FAILED

    @property
    def outcome(self) -> Outcome:
        ingested = self.ingest.outcome if self.ingest else Outcome.OK
        ranked = Outcome.FAILED if self.ranking_failure else Outcome.OK
        return worst((ingested, ranked))

    @property
    def failure(self) -> Failure | None:
        if self.ingest_failed and self.ingest is not None:
            return self.ingest.failure
        return self.ranking_failure

    def lines(self) -> list[str]:
        """What each step did, then why the chain stopped early, if it did."""
        note = self.stop_note()
        return self.step_lines() + ([note] if note else [])

    def step_lines(self) -> list[str]:
        lines = self.ingest.lines() if self.ingest else []
        for step in (self.embedded, self.ranked, self.published):
            lines += step.lines() if step else []
        return lines

    def stop_note(self) -> str | None:
        if self.ingest_failed:
            return INGEST_FAILED
        return NOTHING_STORED if self.day is None else None


def run_daily(
    settings: Settings,
    sessions: sessionmaker[Session],
    now: datetime,
    day: date | None = None,
    *,
    skip_ingest: bool = False,
    progress: Progress = no_progress,
) -> DailyReport:
    """Ingest ``day`` (None: arXiv's latest announcement), then embed, rank and publish it."""
    ingested = None if skip_ingest else ingest(settings, sessions, now, day=day)
    if ingested is not None and ingested.outcome is Outcome.FAILED:
        return DailyReport(ingested)
    target = day or _latest_listing_day(sessions)
    if target is None:
        return DailyReport(ingested)
    return _rank(settings, sessions, DailyReport(ingested, target), target, progress)


def _rank(
    settings: Settings,
    sessions: sessionmaker[Session],
    report: DailyReport,
    day: date,
    progress: Progress,
) -> DailyReport:
    """Embed, rank, publish; each step's report is kept as it comes, so a failure keeps them."""
    try:
        report = replace(report, embedded=editions.embed(settings, sessions, day, progress))
        report = replace(report, ranked=editions.rank(settings, sessions, day))
        return replace(report, published=editions.publish(settings, sessions, day))
    except RankingInputError as error:
        return replace(report, ranking_failure=Failure.of(error))


def _latest_listing_day(sessions: sessionmaker[Session]) -> date | None:
    with session_scope(sessions) as session:
        return latest_listing_day(session)
