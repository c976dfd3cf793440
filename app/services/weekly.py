"""The week's write-ups as use cases, each one unit of work: the emerging-topic radar flags and
stores a week's emerging topics (the week's earlier flags are replaced only once the new ones
are found), and the week in review writes up a week and stores it.

The daily chain runs both with each publication, for the week of the day it publishes, so the
current week's review grows with its days and last week's is final once its last day is in;
``paperboy emerging --date D`` and ``paperboy week-review --date D`` run one week alone.
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
from ranking.week_review import ReviewSummary, write_review


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
