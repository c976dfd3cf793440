"""How many readers follow a topic or an author, and whether an author page is claimed:
counts only, never who."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import Subscriber, SubscriberStatus

# Readers who confirmed a mailbox (subscribed or signed in on the site); a pending or
# unsubscribed address follows nothing.
FOLLOWING = (SubscriberStatus.ACTIVE, SubscriberStatus.PAUSED, SubscriberStatus.WEB)


def topic_followers(session: Session, topic_id: int) -> int:
    """How many readers follow the topic (their lists are JSON: counted here, not in SQL)."""
    lists = session.scalars(
        select(Subscriber.followed_topics).where(Subscriber.status.in_(FOLLOWING))
    )
    return sum(topic_id in (followed or ()) for followed in lists)


def author_followers(session: Session, key: str) -> int:
    """How many readers follow the author key."""
    lists = session.scalars(
        select(Subscriber.followed_authors).where(Subscriber.status.in_(FOLLOWING))
    )
    return sum(key in (followed or ()) for followed in lists)


def author_claimed(session: Session, key: str) -> bool:
    """Whether a confirmed reader said the author page is theirs."""
    claims = session.scalar(
        select(func.count())
        .select_from(Subscriber)
        .where(Subscriber.claimed_author == key, Subscriber.status.in_(FOLLOWING))
    )
    return bool(claims)
