"""What ``paperboy demo`` asks of the store beyond the daily job's use cases: the days its
sample and its replayed feed cover, and a demo reader subscribed and confirmed by mail.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from datetime import date, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from accounts import links
from accounts.addresses import parse_address
from accounts.preferences import parse_preferences
from accounts.subscriptions import confirm, request_subscription
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import AnnouncementEntry, Paper
from digest.mail.confirmation import confirmation_message
from digest.mail.mailer import send_one


def first_listed_day(sessions: sessionmaker[Session], categories: Collection[str]) -> date | None:
    """The earliest announcement day listed in ``categories`` (the replayed feed's)."""
    with session_scope(sessions) as session:
        return session.scalar(
            select(func.min(AnnouncementEntry.announced_on)).where(
                AnnouncementEntry.category.in_(categories)
            )
        )


def stored_days(sessions: sessionmaker[Session]) -> tuple[date | None, date | None]:
    """The first and the last announcement day of the stored papers (None, None: no paper)."""
    with session_scope(sessions) as session:
        first, last = session.execute(
            select(func.min(Paper.announced_on), func.max(Paper.announced_on))
        ).one()
    return first, last


def subscribe_and_confirm(
    settings: Settings, sessions: sessionmaker[Session], email: str, now: datetime
) -> bool:
    """Subscribe ``email`` for a digest at midnight, mail its confirmation and follow the
    link; False if it was already subscribed and confirmed."""
    preferences = parse_preferences({"delivery_hour": "0"}, settings.categories)
    with session_scope(sessions) as session:
        reader = request_subscription(
            session, settings, parse_address(email), preferences, "demo", now
        )
        if reader is None:
            return False
        asyncio.run(send_one(settings, confirmation_message(settings, reader, now)))
        token = links.confirm_url(settings, reader, now).rsplit("token=", 1)[1]
        confirm(session, settings, token, now)
    return True
