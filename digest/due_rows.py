"""Which digests are due now: a pending ledger row for each active subscriber whose schedule
names an edition of the run's day, and the editions those rows are for.

A subscriber whose schedule cannot be read (an unknown time zone) is left out and counted, so
one row never stops everyone's digest.

Whose digest is due (:func:`due`, pure): frequency, weekday, delivery hour in the subscriber's
time zone.
"""

from __future__ import annotations

import logging
from datetime import date, datetime
from typing import NamedTuple
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.models import DeliveryStatus, EditionKey, Frequency, Subscriber, SubscriberStatus
from app.core.periods import Period, span
from app.core.reads import latest_edition
from digest.run_inputs import edition_view
from digest.selection import EditionView
from search.searcher import Searcher

Views = dict[EditionKey, EditionView]
logger = logging.getLogger("paperboy.digest")


class LedgerRow(NamedTuple):
    """A new pending delivery, as the plain-row insert takes it (its fields are the columns)."""

    subscriber_id: int
    period: Period
    edition_date: date
    status: DeliveryStatus
    attempts: int
    item_count: int
    created_at: datetime


LEDGER_COLUMNS = LedgerRow._fields


class DueRows(NamedTuple):
    rows: list[LedgerRow]
    unschedulable: int


def edition_views(
    session: Session, settings: Settings, day: date, search: Searcher | None = None
) -> Views:
    """The day's and its week's latest editions, ready for selection (``search``: runs the
    readers' saved searches)."""
    keys = (EditionKey("day", day), EditionKey("week", span("week", day).key))
    views: Views = {}
    for key in keys:
        edition = latest_edition(session, key.period, key.edition_date, with_items=True)
        if edition is not None:
            views[key] = edition_view(session, edition, settings.embedding_model, search)
    return views


def due_rows(session: Session, views: Views, day: date, now: datetime) -> DueRows:
    rows: list[LedgerRow] = []
    unschedulable = 0
    # Only the columns that say when: whole subscriber objects cost most of the planning.
    schedules = session.execute(
        select(
            Subscriber.id,
            Subscriber.frequency,
            Subscriber.weekday,
            Subscriber.delivery_hour,
            Subscriber.time_zone,
        ).where(Subscriber.status == SubscriberStatus.ACTIVE)
    )
    for subscriber_id, frequency, weekday, hour, time_zone in schedules:
        try:
            target = due(frequency, weekday, hour, time_zone, day, now)
        except Exception as error:  # one subscriber's row never stops everyone's digest
            logger.warning("subscriber %s cannot be scheduled: %r", subscriber_id, error)
            unschedulable += 1
            continue
        if target in views:
            rows.append(_pending_row(subscriber_id, target, now))
    return DueRows(rows, unschedulable)


def _pending_row(subscriber_id: int, edition: EditionKey, now: datetime) -> LedgerRow:
    return LedgerRow(
        subscriber_id=subscriber_id,
        period=edition.period,
        edition_date=edition.edition_date,
        status=DeliveryStatus.PENDING,
        attempts=0,
        item_count=0,
        created_at=now,
    )


def due(
    frequency: Frequency, weekday: int, hour: int, time_zone: str, day: date, now: datetime
) -> EditionKey | None:
    """The edition to send for edition day ``day`` at ``now``, or None yet."""
    local = now.astimezone(ZoneInfo(time_zone))
    if local.hour < hour:
        return None
    if frequency == Frequency.WEEKLY and local.weekday() != weekday:
        return None
    return edition_for(frequency, day)


def edition_for(frequency: Frequency, day: date) -> EditionKey:
    """The edition holding edition day ``day`` that a subscriber of ``frequency`` gets."""
    if frequency == Frequency.WEEKLY:
        return EditionKey("week", span("week", day).key)
    return EditionKey("day", day)
