"""Topics' labels: the one read that the pages, the forms and the digest share."""

from __future__ import annotations

from collections.abc import Collection
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import TopicDay


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
