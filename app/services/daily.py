"""The day's chain, ingest → embed → rank → publish: the daily job and ``paperboy run-daily``.

Each step is its own unit of work. A failed ingest stops the chain (nothing is published from
a day that failed to arrive); a partial or stale one lets it go on and makes the outcome a
warning. Unusable ranking input (:class:`RankingInputError`) stops it as a failure, keeping
what the earlier steps stored.

The chain ranks more than one day when there is more to do: the daily job also ranks the
announcement days a missed run left unranked (:func:`ranking.pipeline.unranked_days`), and
``run-daily --from --to`` fills a range. Days go oldest first, since a day's topics continue
the topics of the days before it; the week and month are published once per period, after
its last day of the run (:func:`ranking.pipeline.closing_days`).

The week's write-ups as use cases, each one unit of work: the emerging-topic radar flags and
stores a week's emerging topics (the week's earlier flags are replaced only once the new ones
are found), and the week in review writes up a week and stores it.

The daily chain runs both with each publication, for the week of the day it publishes, so the
current week's review grows with its days and last week's is final once its last day is in;
``paperboy emerging --date D`` and ``paperboy week-review --date D`` run one week alone.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import date, datetime

from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.db import session_scope
from app.services import editions
from app.services.editions import EditionsReport, EmbedReport, Progress, RankReport, no_progress
from app.services.ingest import IngestReport, ingest
from app.services.people import PeopleReport, names_of_day, split_names
from app.services.previews.stored import PreviewsReport, draw_published
from app.services.reports import Completed, Failure, Outcome, Report, worst
from ingest.live_writes import latest_listing_day
from ranking.emerging import EmergingSummary, find_emerging
from ranking.errors import RankingInputError
from ranking.pipeline import announcement_days, closing_days, unranked_days
from ranking.week_review import ReviewSummary, write_review

log = logging.getLogger(__name__)
NOTHING_STORED = "daily: no announcement stored yet; nothing to rank"
INGEST_FAILED = "daily: ingest failed; nothing ranked or published"


@dataclass(frozen=True)
class DayRanking:
    """What the chain did for one announcement day (a step is None when it did not run)."""

    day: date
    embedded: EmbedReport | None = None
    ranked: RankReport | None = None
    published: EditionsReport | None = None
    emerging: EmergingReport | None = None
    reviewed: WeekReviewReport | None = None
    people: PeopleReport | None = None
    previews: PreviewsReport | None = None

    def lines(self) -> list[str]:
        steps: tuple[Report | None, ...] = (self.embedded, self.ranked, self.published)
        steps += (self.emerging, self.reviewed, self.previews, self.people)
        return [line for step in steps if step is not None for line in step.lines()]


@dataclass(frozen=True)
class DailyReport:
    # None when the chain was told to rank what is stored.
    ingest: IngestReport | None
    # The days ranked, oldest first: none when no announcement is stored (or ingest failed).
    days: tuple[DayRanking, ...] = ()
    ranking_failure: Failure | None = None

    @property
    def day(self) -> date | None:
        """The newest day the chain ranked (or was ranking when it stopped)."""
        return self.days[-1].day if self.days else None

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
        return lines + [line for day in self.days for line in day.lines()]

    def stop_note(self) -> str | None:
        if self.ingest_failed:
            return INGEST_FAILED
        return NOTHING_STORED if not self.days and self.ranking_failure is None else None


def run_daily(
    settings: Settings,
    sessions: sessionmaker[Session],
    now: datetime,
    day: date | None = None,
    *,
    skip_ingest: bool = False,
    progress: Progress = no_progress,
) -> DailyReport:
    """Ingest ``day`` (None: arXiv's latest announcement), then embed, rank and publish it and
    every earlier announcement day left unranked."""
    ingested = None if skip_ingest else ingest(settings, sessions, now, day=day)
    if ingested is not None and ingested.outcome is Outcome.FAILED:
        return DailyReport(ingested)
    target = day or _latest_listing_day(sessions)
    if target is None:
        return DailyReport(ingested)
    with session_scope(sessions) as session:
        gaps = [gap for gap in unranked_days(session, target) if gap < target]
    return rank_days(settings, sessions, DailyReport(ingested), [*gaps, target], progress)


def run_range(
    settings: Settings,
    sessions: sessionmaker[Session],
    first: date,
    last: date,
    progress: Progress = no_progress,
    *,
    embed: bool = True,
) -> DailyReport:
    """Embed (unless told not to), rank and publish every announcement day stored in
    ``first..last``, oldest first: ``run-daily --from --to`` and ``rank --from --to``."""
    with session_scope(sessions) as session:
        days = announcement_days(session, first, last)
    return rank_days(settings, sessions, DailyReport(None), days, progress, embed=embed)


def rank_days(
    settings: Settings,
    sessions: sessionmaker[Session],
    report: DailyReport,
    days: list[date],
    progress: Progress = no_progress,
    *,
    embed: bool = True,
) -> DailyReport:
    """The chain for each of ``days`` in order; the first unusable input stops it there."""
    closing = set(closing_days(days))
    for day in days:
        steps = _Steps(embed=embed, publish=day in closing)
        done, failure = _chain(settings, sessions, day, steps, progress)
        report = replace(report, days=(*report.days, done), ranking_failure=failure)
        if failure is not None:
            break
    return report


@dataclass(frozen=True)
class _Steps:
    embed: bool
    publish: bool


def _chain(
    settings: Settings,
    sessions: sessionmaker[Session],
    day: date,
    steps: _Steps,
    progress: Progress,
) -> tuple[DayRanking, Failure | None]:
    """Embed, rank, publish; each step's report is kept as it comes, so a failure keeps them."""
    done = DayRanking(day)
    try:
        if steps.embed:
            done = replace(done, embedded=editions.embed(settings, sessions, day, progress))
        done = replace(done, ranked=editions.rank(settings, sessions, day))
        if steps.publish:
            done = replace(done, published=editions.publish(settings, sessions, day))
            done = _written_up(settings, sessions, day, done)
        done = _previews_drawn(settings, sessions, day, done)
        # After publishing: nothing published waits on who is who.
        done = _people_of_day(settings, sessions, day, done)
    except RankingInputError as error:
        return done, Failure.of(error)
    return done, None


def _people_of_day(
    settings: Settings, sessions: sessionmaker[Session], day: date, done: DayRanking
) -> DayRanking:
    """The day's names split into people again: a failure is logged and the chain goes on,
    since the name pages still show every paper of a name."""
    try:
        names = names_of_day(sessions, day)
        return replace(done, people=split_names(settings, sessions, names))
    except Exception:
        log.exception("splitting the names of %s into people failed; the chain goes on", day)
        return done


def _previews_drawn(
    settings: Settings, sessions: sessionmaker[Session], day: date, done: DayRanking
) -> DayRanking:
    """The link previews of the editions holding ``day``: a failure is logged and the chain
    goes on, since the web draws any preview it finds no file for."""
    try:
        return replace(done, previews=draw_published(settings, sessions, day))
    except Exception:
        log.exception("drawing the link previews of %s failed; the chain goes on", day)
        return done


def _written_up(
    settings: Settings, sessions: sessionmaker[Session], day: date, done: DayRanking
) -> DayRanking:
    """The week's emerging topics and review, read from what is published: a failure of
    either is logged and leaves the chain going, since nothing later depends on them."""
    try:
        done = replace(done, emerging=flag_week(settings, sessions, day))
    except Exception:
        log.exception("emerging topics of the week of %s failed; the chain goes on", day)
    try:
        done = replace(done, reviewed=review_week(settings, sessions, day))
    except Exception:
        log.exception("the review of the week of %s failed; the chain goes on", day)
    return done


def _latest_listing_day(sessions: sessionmaker[Session]) -> date | None:
    with session_scope(sessions) as session:
        return latest_listing_day(session)


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
