"""The reads every layer shares over the core's tables.

Which stored edition answers "the newest": one answer for the pages, the feeds, the API, the
digest and the ranking steps; what an edition is called where a reader sees it; and topics'
labels as of a day, which the pages, the forms and the digest all show.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from app.core.models import Edition, TopicDay
from app.core.periods import Period


def latest_edition(
    session: Session, period: Period, key: date | None, *, with_items: bool = False
) -> Edition | None:
    """The newest version of the (period, key) edition, or of the period's newest edition when
    ``key`` is None; ``with_items`` loads its items in the same read (a digest reads them all).
    """
    query = select(Edition).where(Edition.period == period)
    if key is not None:
        query = query.where(Edition.edition_date == key)
    if with_items:
        query = query.options(selectinload(Edition.items))
    newest = query.order_by(Edition.edition_date.desc(), Edition.version.desc()).limit(1)
    return session.scalars(newest).first()


def human_label(period: Period, key: date) -> str:
    """An edition's name as a reader says it: 19 Dec 2025, Week of 15 Dec 2025, December 2025."""
    if period == "week":
        return f"Week of {key.day} {key:%b %Y}"
    if period == "month":
        return f"{key:%B %Y}"
    return f"{key.day} {key:%b %Y}"


def topic_labels(
    session: Session, topic_ids: Collection[int], until: date = date.max
) -> dict[int, str]:
    """Each topic's label as of its latest day up to ``until``."""
    if not topic_ids:
        return {}
    rows = session.execute(
        select(TopicDay.topic_id, TopicDay.label)
        .where(TopicDay.topic_id.in_(list(set(topic_ids))), TopicDay.day <= until)
        .order_by(TopicDay.day)
    )
    return {int(row.topic_id): str(row.label) for row in rows}
