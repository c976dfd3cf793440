"""When each job runs: its name, what it does and its trigger (light: no job code imported).

The web app's ``/status`` page reads this to show next runs without importing the jobs
themselves (which load the ranking stack).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger

from app.core.config import Settings
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
