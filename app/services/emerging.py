"""The emerging-topic radar as a use case: flag and store a week's emerging topics.

One unit of work: the week's earlier flags are replaced only once the new ones are found.
The daily chain runs it with each publication (the week of the day it publishes), and
``paperboy emerging --date D`` runs it alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.db import session_scope
from app.services.reports import Completed
from ranking.emerging import EmergingSummary, find_emerging


@dataclass(frozen=True)
class EmergingReport(Completed):
    summary: EmergingSummary

    def lines(self) -> list[str]:
        return [self.summary.line()]


def flag_week(
    settings: Settings, sessions: sessionmaker[Session], day: date, clock: Clock = utc_now
) -> EmergingReport:
    """The emerging topics of ``day``'s week, stored."""
    with session_scope(sessions) as session:
        return EmergingReport(find_emerging(session, day, settings, clock()))
