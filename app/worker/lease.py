"""The scheduler and the database: the lease, one row that says which scheduler may run jobs,
and an outage as a scheduler lives through it.

A scheduler renews its lease well before it expires; another takes it only once it has
expired, so exactly one acts and a standby takes over within a lease's length after the
active one dies. The conditional UPDATE is atomic on SQLite (one writer) and PostgreSQL (the
row lock, re-checked after the other's commit), so no advisory lock is needed.

While the database is away, :class:`Outage` keeps when the outage began and how long to wait
before looking again (twice as long after each failed look, up to a limit). It is pure
bookkeeping: the scheduler says when a look failed or succeeded, and logs one line when the
database goes and one when it is back, never a line per retry.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.core.models import SchedulerLease

LEASE_NAME = "scheduler"
_NOBODY = ""


def acquire(session: Session, owner: str, now: datetime, length: timedelta) -> bool:
    """Take or renew the lease for ``owner``; False if another holds an unexpired one."""
    _ensure_row(session, now)
    result = session.execute(
        update(SchedulerLease)
        .where(
            SchedulerLease.name == LEASE_NAME,
            or_(SchedulerLease.owner == owner, SchedulerLease.expires_at <= now),
        )
        .values(owner=owner, expires_at=now + length)
    )
    return bool(getattr(result, "rowcount", 0) == 1)


def release(session: Session, owner: str, now: datetime) -> None:
    """Give the lease up at once (a clean shutdown), so a standby need not wait it out."""
    session.execute(
        update(SchedulerLease)
        .where(SchedulerLease.name == LEASE_NAME, SchedulerLease.owner == owner)
        .values(expires_at=now)
    )


def holder(session: Session, now: datetime) -> str | None:
    lease = session.scalars(select(SchedulerLease).where(SchedulerLease.name == LEASE_NAME)).first()
    if lease is None or lease.expires_at <= now or lease.owner == _NOBODY:
        return None
    return lease.owner


def _ensure_row(session: Session, now: datetime) -> None:
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(SchedulerLease).values(name=LEASE_NAME, owner=_NOBODY, expires_at=now)
    session.execute(statement.on_conflict_do_nothing())


@dataclass
class Outage:
    """Retries while the database is away: ``first`` seconds after the first failed look,
    then twice as long each time, never longer than ``longest``."""

    first: float
    longest: float
    since: datetime | None = None
    failed_looks: int = 0

    @property
    def ongoing(self) -> bool:
        return self.since is not None

    def failed(self, now: datetime) -> float:
        """Note a failed look; the seconds to wait before the next one."""
        if self.since is None:
            self.since = now
        wait: float = min(self.longest, self.first * 2.0**self.failed_looks)
        self.failed_looks += 1
        return wait

    def ended(self, now: datetime) -> float | None:
        """Seconds the outage lasted, if one was ongoing (it is over now); else None."""
        if self.since is None:
            return None
        lasted = (now - self.since).total_seconds()
        self.since, self.failed_looks = None, 0
        return lasted
