"""The deployment's PostgreSQL streaming standbys (``PAPERBOY_DATABASE_REPLICA_URLS``): an
engine each, with its own connection budget, and a health check that a background thread
repeats. Which standby answers a read is :mod:`app.core.wal`'s choice; writes, and every
read that must see them, stay on the primary.

A check asks the primary where its log is and each standby how far it has replayed: a
standby that does not answer, that was promoted (no longer in recovery), or that lags past
``PAPERBOY_REPLICA_MAX_LAG_SECONDS`` is skipped until a later check finds it fit again.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import deque
from contextlib import suppress
from dataclasses import replace
from datetime import datetime

from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.db import make_session_factory
from app.core.wal import StandbyState, aged, choose, lag_seconds, parse_position

log = logging.getLogger(__name__)

# Seconds a check waits for a standby's connection: a dead host must not hold up the others.
CONNECT_TIMEOUT_SECONDS = 2
# What a connection to a standby that stops answering (a network cut, not a clean stop) waits
# before it fails: TCP keepalives and libpq's user timeout, in seconds and milliseconds.
STANDBY_CONNECTION = {
    "connect_timeout": CONNECT_TIMEOUT_SECONDS,
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "tcp_user_timeout": 10_000,
}
# Seconds a request waits for one of a busy standby's connections before the primary answers.
POOL_WAIT_SECONDS = 0.5
# Checks a standby's state outlives: past them (a check that hangs), reads stay off it.
STALE_AFTER_CHECKS = 3
STANDBY_QUERY = text(
    "SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS position,"
    " EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) AS since_replay"
)
PRIMARY_QUERY = text("SELECT pg_current_wal_lsn()::text")
# The key of ``Session.info`` that holds the standby a session reads from.
STANDBY = "standby"
# The primary's positions kept: at a check every 2 s, the last half hour's.
PRIMARY_SAMPLES = 900


def said(error: SQLAlchemyError) -> str:
    """The driver's first line about ``error``: what a status page shows of it."""
    told = str(getattr(error, "orig", None) or error).strip()
    return (told.splitlines() or [type(error).__name__])[0][:200]


def replica_name(url: str) -> str:
    """Host, port and database: how pages and metrics name a standby (no user or password)."""
    parsed = make_url(url)
    return f"{parsed.host or 'localhost'}:{parsed.port or 5432}/{parsed.database or ''}"


class Replicas:
    """The standbys of one process, checked every ``replica_check_seconds``."""

    def __init__(self, settings: Settings, primary: Engine, clock: Clock = utc_now) -> None:
        self.settings, self.primary, self.clock = settings, primary, clock
        urls = settings.database_replica_urls
        self.names = [replica_name(url) for url in urls]
        self.engines = [_standby_engine(url, settings.replica_pool_size) for url in urls]
        self.sessions = [make_session_factory(engine) for engine in self.engines]
        # Checks open connections of their own: a busy pool must not read as a dead standby.
        self._probes = [_probe_engine(url) for url in urls]
        now = clock()
        self._states = [
            StandbyState(name=name, checked_at=now, up=False, error="not checked yet")
            for name in self.names
        ]
        # The primary's position at each recent check, oldest first: how stale a standby is.
        self._written: deque[tuple[datetime, int]] = deque(maxlen=PRIMARY_SAMPLES)
        # When a request last found each one down: a check begun before that does not undo it.
        self._down_at: dict[int, datetime] = {}
        self._lock = threading.Lock()
        self._checking = threading.Lock()
        self._turns = itertools.count()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def states(self) -> list[StandbyState]:
        with self._lock:
            return list(self._states)

    def pick(self, at_least: int | None) -> tuple[int, sessionmaker[Session]] | None:
        """A standby fit to answer a read that must see position ``at_least`` (None: any fit
        one), with its sessions; None when only the primary will do."""
        max_lag = self.settings.replica_max_lag_seconds
        checks = STALE_AFTER_CHECKS * self.settings.replica_check_seconds
        limit = checks + CONNECT_TIMEOUT_SECONDS * len(self.engines)
        now = self.clock()
        states = [aged(state, now, limit) for state in self.states()]
        index = choose(states, max_lag, at_least, next(self._turns))
        return None if index is None else (index, self.sessions[index])

    def session_on_standby(self, at_least: int | None) -> Session | None:
        """A session on a fit standby that gives a connection now (one that does not is marked
        down and the next is tried), or None: the primary must answer. A standby whose
        connections are all in use is not down: the primary answers this one read."""
        chosen = self.pick(at_least)
        while chosen is not None:
            index, sessions = chosen
            session = sessions()
            try:
                session.connection()
            except PoolTimeout:
                session.close()
                return None
            except SQLAlchemyError as error:
                session.close()
                self.mark_down(index, said(error))
                chosen = self.pick(at_least)
            else:
                session.info[STANDBY] = index
                return session
        return None

    def mark_down(self, index: int, error: str) -> None:
        """A standby that failed a request is skipped until the next check finds it up."""
        now = self.clock()
        with self._lock:
            self._states[index] = replace(
                self._states[index], up=False, error=error, checked_at=now
            )
            self._down_at[index] = now
        log.warning("replica %s is down: %s", self.names[index], error)

    def primary_position(self) -> int:
        """Where the primary's log is now: what a read after a write must have replayed."""
        with self.primary.connect() as connection:
            return parse_position(str(connection.execute(PRIMARY_QUERY).scalar_one()))

    def check(self) -> list[StandbyState]:
        """Ask every standby how far it is; keep and return what they said (one check at a
        time: the thread's and an operator's)."""
        with self._checking:
            started = self.clock()
            found = self._check_all()
        with self._lock:
            self._states = [
                self._states[index] if self._down_at.get(index, started) > started else state
                for index, state in enumerate(found)
            ]
            return list(self._states)

    def _check_all(self) -> list[StandbyState]:
        primary: int | None = None
        # The primary away: each standby is judged by the time since its last replay.
        with suppress(SQLAlchemyError):
            primary = self.primary_position()
        if primary is not None:
            self._written.append((self.clock(), primary))
        return [self._check_one(index, primary) for index in range(len(self.engines))]

    def _check_one(self, index: int, primary: int | None) -> StandbyState:
        name, engine, now = self.names[index], self._probes[index], self.clock()
        try:
            with engine.connect() as connection:
                row = connection.execute(STANDBY_QUERY).one()
        except SQLAlchemyError as error:
            return StandbyState(name=name, checked_at=now, up=False, error=said(error))
        if not row.standby:
            reason = "not a standby (promoted?): reads stay off it"
            return StandbyState(name=name, checked_at=now, up=True, error=reason)
        position = None if row.position is None else parse_position(row.position)
        behind = None if primary is None or position is None else max(primary - position, 0)
        since = None if row.since_replay is None else float(row.since_replay)
        lag = None if position is None else lag_seconds(self._written, position, since, now)
        return StandbyState(
            name=name,
            checked_at=now,
            up=True,
            standby=True,
            position=position,
            lag_bytes=behind,
            lag_seconds=since if lag is None else lag,
        )

    def start(self) -> None:
        """Check now, then every ``replica_check_seconds`` in a daemon thread until :meth:`stop`."""
        self.check()
        self._thread = threading.Thread(target=self._watch, name="replica-check", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(self.settings.replica_check_seconds):
            try:
                self.check()
            except Exception:  # a check must never end the thread that keeps reads safe
                log.exception("replica check failed")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:  # a check hung on a dead host is left to its daemon thread
            self._thread.join(timeout=CONNECT_TIMEOUT_SECONDS)
        for engine in self.engines + self._probes:
            engine.dispose()


def _standby_engine(url: str, budget: int) -> Engine:
    """At most ``budget`` connections to this standby, whatever the load: a request past it
    waits for one to come free."""
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=budget,
        max_overflow=0,
        pool_timeout=POOL_WAIT_SECONDS,
        connect_args=STANDBY_CONNECTION,
    )


def _probe_engine(url: str) -> Engine:
    """A connection per check, outside the requests' budget."""
    return create_engine(url, poolclass=NullPool, connect_args=STANDBY_CONNECTION)
