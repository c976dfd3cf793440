"""The signed-in reader's actions: save, thumbs, follow, mute, claim, the private feed's key,
and forgetting them.

Every step opens one session scope at the deployment's clock and commits before it returns;
they block (database I/O), so the async routes run them in the thread pool. A signed-in
reader's first action makes their subscriber row (``digest.accounts.reader.reader_row``);
reading their pages never writes (``app.web.reader_views``). Actions run as
:func:`app.core.db.unit_of_work`, so a button pressed many times at once acts once and
answers every press.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy.orm import Session

from app.core.db import unit_of_work
from app.core.models import Subscriber
from app.services.deployment import Deployment
from digest.accounts import reader, subscriptions

Action = Callable[[Session, Subscriber, datetime], None]


def act(site: Deployment, email_key: str, action: Action) -> None:
    """Run one reader action on their row, made in the status ``web`` if they have none."""
    now = site.clock()
    unit_of_work(
        site.sessions,
        lambda session: action(session, reader.reader_row(session, email_key, now), now),
    )


def forget(site: Deployment, email_key: str) -> None:
    """Delete the reader's row and all it holds, their votes and sign-in key (signed out)."""
    now = site.clock()
    unit_of_work(
        site.sessions,
        lambda session: subscriptions.delete_everything(
            session, reader.reader_row(session, email_key, now)
        ),
    )
