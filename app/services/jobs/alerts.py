"""Incidents and the admin alert: mailed once when a job starts failing, closed when it recovers.

An incident is keyed by job name. A failed or warning (partial, stale source) run opens one,
or counts another failure on the open one; the first ok run closes it. The admin
(``PAPERBOY_ADMIN_EMAIL``) is mailed once per incident (``templates/email/job_alert/``, sent
through the digest's SMTP sender like every other mail); if that mail cannot go out, the
incident stays unalerted and the next failing run tries again.
An operator acknowledges an open incident (``paperboy incidents ack JOB``): it stays open
until the job succeeds, and ``/status`` shows it as acknowledged rather than unhealthy.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import Clock
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import Incident
from app.services.reports import Outcome
from digest.mail.mailer import DeliveryError, send_one
from digest.mail.messages import Envelope, OutgoingMail, build_message, render_email

logger = logging.getLogger("paperboy.alerts")


def note_outcome(
    session: Session, key: str, outcome: Outcome, error: str | None, now: datetime
) -> int | None:
    """Update the incidents for a run's outcome; the id of one that still needs its alert."""
    incident = open_incident(session, key)
    if outcome is Outcome.OK:
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
    clock: Clock,
) -> None:
    if incident_id is None or not settings.admin_email:
        return
    now = clock()
    with session_scope(sessions) as session:
        incident = session.get_one(Incident, incident_id)
        try:
            asyncio.run(send_one(settings, alert_message(settings, incident, now)))
        except DeliveryError as error:
            logger.warning("alert for %s not sent: %s", incident.key, error)
            return
        incident.alerted_at = now


def alert_message(settings: Settings, incident: Incident, now: datetime) -> OutgoingMail:
    context = {
        "job": incident.key,
        "opened_at": f"{incident.opened_at:%Y-%m-%d %H:%M}",
        "error": incident.last_error or "no error text",
        "status_url": settings.public_base_url.rstrip("/") + "/status",
    }
    envelope = Envelope(settings.mail_from, settings.admin_email, now)
    return build_message(envelope, render_email("job_alert", context))
