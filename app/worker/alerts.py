"""Incidents and the admin alert: mailed once when a job starts failing, closed when it recovers.

An incident is keyed by job name. A failed or warning (partial, stale source) run opens one,
or counts another failure on the open one; the first ok run closes it. The admin
(``PAPERBOY_ADMIN_EMAIL``) is mailed once per incident through the digest's SMTP sender; if
that mail cannot go out, the incident stays unalerted and the next failing run tries again.
An operator acknowledges an open incident (``paperboy incidents ack JOB``): it stays open
until the job succeeds, and ``/status`` shows it as acknowledged rather than unhealthy.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import Incident
from digest.mail.mailer import DeliveryError, send_one

logger = logging.getLogger("paperboy.alerts")


def note_outcome(
    session: Session, key: str, status: str, error: str | None, now: datetime
) -> int | None:
    """Update the incidents for a run's status; the id of one that still needs its alert."""
    incident = open_incident(session, key)
    if status == "ok":
        if incident is not None:
            incident.closed_at = now
        return None
    if incident is None:
        incident = Incident(key=key, opened_at=now, failures=1, last_error=error)
        session.add(incident)
        session.flush()
    else:
        incident.failures += 1
        incident.last_error = error
    return incident.id if incident.alerted_at is None else None


def open_incident(session: Session, key: str) -> Incident | None:
    query = select(Incident).where(Incident.key == key, Incident.closed_at.is_(None))
    return session.scalars(query.order_by(Incident.id.desc()).limit(1)).first()


def acknowledge(session: Session, key: str, now: datetime) -> Incident | None:
    """Mark the open incident of job ``key`` acknowledged (once); None if there is none."""
    incident = open_incident(session, key)
    if incident is not None and incident.acknowledged_at is None:
        incident.acknowledged_at = now
    return incident


def open_incidents(session: Session) -> list[Incident]:
    query = select(Incident).where(Incident.closed_at.is_(None)).order_by(Incident.opened_at)
    return list(session.scalars(query))


def alert_if_new(
    settings: Settings,
    sessions: sessionmaker[Session],
    incident_id: int | None,
    clock: Callable[[], datetime],
) -> None:
    if incident_id is None or not settings.admin_email:
        return
    with session_scope(sessions) as session:
        incident = session.get_one(Incident, incident_id)
        try:
            asyncio.run(send_one(settings, alert_message(settings, incident)))
        except DeliveryError as error:
            logger.warning("alert for %s not sent: %s", incident.key, error)
            return
        incident.alerted_at = clock()


def alert_message(settings: Settings, incident: Incident) -> EmailMessage:
    message = EmailMessage()
    message["From"] = settings.mail_from
    message["To"] = settings.admin_email
    message["Subject"] = f"[Paperboy] job {incident.key} is failing"
    status_url = settings.public_base_url.rstrip("/") + "/status"
    message.set_content(
        f"The Paperboy job {incident.key!r} failed at {incident.opened_at:%Y-%m-%d %H:%M} UTC.\n\n"
        f"{incident.last_error or 'no error text'}\n\n"
        "You get this once per incident; it closes when the job next succeeds.\n"
        f"Status: {status_url}\n"
        f"Re-run by hand: paperboy jobs run {incident.key}\n"
    )
    return message
