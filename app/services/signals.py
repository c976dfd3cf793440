"""Community signals: refresh Hugging Face upvotes, then rebuild the day's published editions
(day, week, month) with them and with the votes cast on Paperboy (the signals job).

Signals raise or lower a paper as they arrive, and a changed order is a new version of the
same editions. The votes are local, so the rebuild runs even when Hugging Face could not be
read, and alone in offline mode.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.services import editions
from app.services.editions import EditionsReport
from app.services.ingest import IngestReport, Source, ingest
from app.services.previews.stored import PreviewsReport, draw_published
from app.services.reports import Failure, Outcome, worst
from ingest.live_writes import latest_listing_day
from ranking.errors import RankingInputError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SignalsReport:
    # None in offline mode: Hugging Face is not read.
    hf: IngestReport | None
    # None when no announcement is stored yet, or the rebuild failed.
    rebuilt: EditionsReport | None = None
    rebuild_failure: Failure | None = None
    # None when nothing was rebuilt, or drawing failed (logged: the web draws what is missing).
    previews: PreviewsReport | None = None

    @property
    def outcome(self) -> Outcome:
        read = self.hf.outcome if self.hf else Outcome.OK
        return worst((read, Outcome.FAILED if self.rebuild_failure else Outcome.OK))

    @property
    def failure(self) -> Failure | None:
        return self.rebuild_failure or (self.hf.failure if self.hf else None)

    def lines(self) -> list[str]:
        return [
            *(self.hf.lines() if self.hf else []),
            *(self.rebuilt.lines() if self.rebuilt else []),
            *(self.previews.lines() if self.previews else []),
        ]


def refresh_signals(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None = None
) -> SignalsReport:
    """Read ``day``'s Hugging Face page (None: the latest day), then rebuild its editions."""
    hf = None if settings.offline else ingest(settings, sessions, now, source=Source.HF, day=day)
    target = day or _latest_listing_day(sessions)
    if target is None:
        return SignalsReport(hf)
    try:
        rebuilt = editions.refresh_editions(settings, sessions, target)
    except RankingInputError as error:
        return SignalsReport(hf, rebuild_failure=Failure.of(error))
    return SignalsReport(hf, rebuilt, previews=_previews_redrawn(settings, sessions, target))


def _previews_redrawn(
    settings: Settings, sessions: sessionmaker[Session], day: date
) -> PreviewsReport | None:
    """The previews whose upvotes or chance the rebuild moved, drawn again."""
    try:
        return draw_published(settings, sessions, day)
    except Exception:
        log.exception("drawing the link previews of %s failed; the rebuild stands", day)
        return None


def _latest_listing_day(sessions: sessionmaker[Session]) -> date | None:
    with session_scope(sessions) as session:
        return latest_listing_day(session)
