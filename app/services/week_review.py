"""The week in review as a use case: write up a week and store it (one unit of work).

The daily chain writes the week of each day it publishes, so the current week's review grows
with its days and last week's is final once its last day is in; ``paperboy week-review --date
D`` writes one week alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.db import session_scope
from app.services.reports import Completed
from ranking.week_review import ReviewSummary, write_review


@dataclass(frozen=True)
class WeekReviewReport(Completed):
    summary: ReviewSummary

    def lines(self) -> list[str]:
        return [self.summary.line()]


def review_week(
    settings: Settings, sessions: sessionmaker[Session], day: date, clock: Clock = utc_now
) -> WeekReviewReport:
    """``day``'s week written up and stored."""
    with session_scope(sessions) as session:
        return WeekReviewReport(write_review(session, day, clock()))
