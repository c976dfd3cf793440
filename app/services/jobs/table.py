"""The job table: every scheduled job in one place, with when it runs (its name, what it does,
its trigger) and the use case it runs.

Each job calls the same use case a person runs by hand (``paperboy run-daily``, the signals
refresh, ``paperboy send-digests``, ``paperboy jobs run mail``, ``paperboy jobs run prune``),
is idempotent per announcement day (the mail job: per mail; a second prune finds nothing
more to delete) and returns that use case's report. The use cases are imported when a job
runs, not when the table is: they load the ranking stack (seconds), which a standby scheduler
never needs, and the web app's ``/status`` page reads the schedules here to show next runs
without importing the jobs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.services.reports import Report
from ingest.calendar import AnnouncementTrigger, holidays


@dataclass(frozen=True)
class Schedule:
    name: str
    description: str
    trigger: Callable[[Settings], BaseTrigger]
    # Reads arXiv: off in offline mode (PAPERBOY_OFFLINE), never scheduled nor expected to run.
    needs_network: bool = False

    def off(self, settings: Settings) -> bool:
        return self.needs_network and settings.offline


def announcement_trigger(settings: Settings) -> BaseTrigger:
    margin = timedelta(minutes=settings.announcement_margin_minutes)
    return AnnouncementTrigger(holidays(settings.arxiv_holidays), margin)


def signals_trigger(_settings: Settings) -> BaseTrigger:
    # Hugging Face's page fills during the day after an announcement; four looks a day suffice.
    return CronTrigger(hour="3,9,15,21", minute=15, timezone=UTC)


def hourly_trigger(_settings: Settings) -> BaseTrigger:
    # Each subscriber's delivery hour is local; an hourly pass finds whoever's hour has come.
    # Weekly subscribers are in it too: their weekday is checked per subscriber.
    return CronTrigger(minute=5, timezone=UTC)


def minutely_trigger(_settings: Settings) -> BaseTrigger:
    # A mail the server put off is due again after a minute at first (the outbox's backoff).
    return CronTrigger(minute="*", timezone=UTC)


def nightly_trigger(_settings: Settings) -> BaseTrigger:
    # Between the signals refreshes at 03:15 and 09:15, away from the evening announcement.
    return CronTrigger(hour=4, minute=45, timezone=UTC)


def ten_minutes_trigger(_settings: Settings) -> BaseTrigger:
    # A reader's first mail about new comments goes out soon after; later ones wait for the
    # hour since their last (``accounts.comment_mail``), whatever the run.
    return CronTrigger(minute="*/10", timezone=UTC)


SCHEDULES: tuple[Schedule, ...] = (
    Schedule(
        "daily",
        "ingest arXiv's announcement, then embed, rank and publish that day",
        announcement_trigger,
        needs_network=True,
    ),
    Schedule(
        "signals",
        "refresh Hugging Face upvotes (not in offline mode), then rebuild the day's editions "
        "with them and the votes",
        signals_trigger,
    ),
    Schedule(
        "digests",
        "send daily and weekly digests to those whose local delivery hour has come",
        hourly_trigger,
    ),
    Schedule(
        "mail",
        "send the confirmation, sign-in and alert mails the outbox keeps, once they are due",
        minutely_trigger,
    ),
    Schedule(
        "prune",
        "delete mails sent or given up and finished job runs older than their retention "
        "(each job's newest run and newest success stay)",
        nightly_trigger,
    ),
    Schedule(
        "discussion-mail",
        "queue each reader's mail of new replies to their comments, or comments on their "
        "papers, at most one an hour",
        ten_minutes_trigger,
    ),
)


def next_run(schedule: Schedule, settings: Settings, now: datetime) -> datetime | None:
    if schedule.off(settings):
        return None
    fire: datetime | None = schedule.trigger(settings).get_next_fire_time(None, now)
    return fire


def fire_times(trigger: BaseTrigger, start: datetime, end: datetime) -> list[datetime]:
    """Every time ``trigger`` fires in [start, end), as the scheduler would walk it."""
    times: list[datetime] = []
    fire: datetime | None = trigger.get_next_fire_time(None, start)
    while fire is not None and fire < end:
        times.append(fire)
        fire = trigger.get_next_fire_time(fire, fire)
    return times


JobBody = Callable[[Settings, sessionmaker[Session], datetime, date | None], Report]


@dataclass(frozen=True)
class Job:
    schedule: Schedule
    body: JobBody

    @property
    def name(self) -> str:
        return self.schedule.name


def run_daily(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None
) -> Report:
    from app.services.daily import run_daily

    return run_daily(settings, sessions, now, day)


def refresh_signals(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None
) -> Report:
    from app.services.editions import refresh_signals

    return refresh_signals(settings, sessions, now, day)


def send_digests(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None
) -> Report:
    from app.services.digests import send_due_digests

    return send_due_digests(settings, sessions, now, day)


def send_mail(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None
) -> Report:
    from app.services.mail_outbox import send_due

    return send_due(settings, sessions, now, day)


def prune_old_rows(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None
) -> Report:
    from app.services.pruning import prune_old_rows

    return prune_old_rows(settings, sessions, now, day)


def queue_comment_mail(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None
) -> Report:
    from app.services.comment_mail import queue_comment_mail

    return queue_comment_mail(settings, sessions, now, day)


_BODIES: dict[str, JobBody] = {
    "daily": run_daily,
    "signals": refresh_signals,
    "digests": send_digests,
    "mail": send_mail,
    "prune": prune_old_rows,
    "discussion-mail": queue_comment_mail,
}
JOBS: tuple[Job, ...] = tuple(Job(schedule, _BODIES[schedule.name]) for schedule in SCHEDULES)
JOBS_BY_NAME = {job.name: job for job in JOBS}


def jobs_on(settings: Settings, jobs: Sequence[Job] = JOBS) -> list[Job]:
    """The jobs a scheduler runs: all but those offline mode turns off."""
    return [job for job in jobs if not job.schedule.off(settings)]
