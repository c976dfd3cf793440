"""Catch-up: a daily reader who missed digests gets one digest of the gap, not a stack.

A reader misses days when they paused, when their mail bounced, or when they say on the
preferences page that they were away. Their next day digest then covers every announcement
day since the last digest they were sent (or since the day they say they left), at most
:data:`MAX_DAYS` days back: one selection over all those days' papers, each paper once, at most
:data:`MAX_PAPERS` papers, the picked-for-you part grouped by topic. It opens with what
changed while they were away: the topics that grew most against the same number of days
before the gap, and the new ones (:func:`changes`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from datetime import date, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import Delivery, DeliveryStatus, Edition, EditionKey, TopicDay
from app.core.refusals import BadInput
from digest.sections import Sectioned
from digest.selection import Pick, Section

MAX_DAYS = 30
MAX_PAPERS = 30
# What a topic must have done in the gap to be named: this many papers, and grown this much.
CHANGE_PAPERS = 3
CHANGE_GROWTH = 1.5
CHANGES_NAMED = 3


class AwayRefusedError(BadInput, ValueError):
    """An "I was away since" day that cannot be taken, said in words."""


def away_since(asked: str, today: date) -> date | None:
    """The day a reader says they left (empty: they are not away), one of the last
    :data:`MAX_DAYS` days, or :class:`AwayRefusedError`."""
    if not asked.strip():
        return None
    try:
        since = date.fromisoformat(asked.strip())
    except ValueError:
        raise AwayRefusedError("the day you left is a date, YYYY-MM-DD") from None
    if not today - timedelta(days=MAX_DAYS - 1) <= since <= today:
        raise AwayRefusedError(f"the day you left is one of the last {MAX_DAYS} days")
    return since


@dataclass(frozen=True, slots=True)
class Gap:
    """The announcement days a catch-up covers, ``first`` to ``last`` (the edition's day)."""

    first: date
    last: date

    @property
    def days(self) -> int:
        return (self.last - self.first).days + 1


def gap_of(
    session: Session, subscriber_id: int, edition: EditionKey, away_since: date | None = None
) -> Gap | None:
    """The days the reader's digest of ``edition`` must cover, when they missed any: since
    ``away_since`` when they said so, else since the last day digest they were sent. None for
    a week edition, a reader never sent one, or one who missed no announcement day."""
    if edition.period != "day":
        return None
    day = edition.edition_date
    if away_since is not None and away_since < day:
        first = away_since
    else:
        last_sent = session.scalar(
            select(func.max(Delivery.edition_date)).where(
                Delivery.subscriber_id == subscriber_id,
                Delivery.period == "day",
                Delivery.status == DeliveryStatus.SENT,
                Delivery.edition_date < day,
            )
        )
        if last_sent is None:
            return None
        first = last_sent + timedelta(days=1)
    first = max(first, day - timedelta(days=MAX_DAYS - 1))
    return Gap(first, day) if _missed(session, first, day) else None


def _missed(session: Session, first: date, day: date) -> bool:
    """Whether a day edition was published for a day from ``first`` up to the day before."""
    found = session.scalar(
        select(func.count())
        .select_from(Edition)
        .where(Edition.period == "day", Edition.edition_date >= first, Edition.edition_date < day)
    )
    return bool(found)


def changes(session: Session, gap: Gap) -> list[str]:
    """What changed in the gap, in words: the topics that grew most against as many days
    before it, and the new ones; at most :data:`CHANGES_NAMED`."""
    before = Gap(gap.first - timedelta(days=gap.days), gap.first - timedelta(days=1))
    now, then, labels = _sizes(session, gap), _sizes(session, before), _labels(session, gap)
    growth = {
        topic: size / then[topic] if then[topic] else float("inf")
        for topic, size in now.items()
        if size >= CHANGE_PAPERS and (not then[topic] or size / then[topic] >= CHANGE_GROWTH)
    }
    ranked = sorted(growth, key=lambda topic: (-growth[topic], -now[topic], topic))
    return [_said(labels[topic], now[topic], then[topic]) for topic in ranked[:CHANGES_NAMED]]


def _said(label: str, now: int, then: int) -> str:
    if not then:
        return f"new: “{label}” ({now} papers)"
    if now >= 2 * then and now < 3 * then:
        return f"“{label}” doubled ({then} → {now} papers)"
    return f"“{label}” grew {now / then:.1f} times ({then} → {now} papers)"


def _sizes(session: Session, gap: Gap) -> Counter[int]:
    rows = session.execute(
        select(TopicDay.topic_id, func.sum(TopicDay.size))
        .where(TopicDay.day >= gap.first, TopicDay.day <= gap.last)
        .group_by(TopicDay.topic_id)
    )
    return Counter({topic: int(size or 0) for topic, size in rows})


def _labels(session: Session, gap: Gap) -> dict[int, str]:
    rows = session.execute(
        select(TopicDay.topic_id, TopicDay.label)
        .where(TopicDay.day >= gap.first, TopicDay.day <= gap.last)
        .order_by(TopicDay.day)
    )
    return dict(rows.all())


def gathered(picks: Sectioned) -> Sectioned:
    """A catch-up's picks: at most :data:`MAX_PAPERS`, those picked for the reader grouped by
    topic (topics in the order of their best pick), each group named."""
    chosen = picks.picks[:MAX_PAPERS]
    mine = [pick for pick in chosen if pick.section == Section.FOR_YOU]
    order: dict[str, list[Pick]] = {}
    for pick in mine:
        group = pick.paper.topic_label or "Other papers"
        order.setdefault(group, []).append(replace(pick, group=group))
    grouped = iter([pick for part in order.values() for pick in part])
    regrouped = [next(grouped) if pick.section == Section.FOR_YOU else pick for pick in chosen]
    return replace(picks, picks=regrouped)
