"""The politeness gate: one arXiv request at a time, at most one every N seconds, for the
whole deployment.

Its state is one row of ``request_gates`` on the shared database, so every client object and
every process that uses the same database waits its turn. A request is claimed with a
conditional UPDATE (compare-and-set), which both SQLite (writes are serialised) and
PostgreSQL (a concurrent UPDATE re-checks its WHERE once the row is free) let only one
claimant win. The claim is a lease: a process that dies mid-request blocks the others only
until the lease expires. Times are each host's wall clock, so hosts that share a PostgreSQL
database must keep their clocks in step (NTP).

The gate commits in its own short transactions, apart from the job's session: its state must
be visible to other processes at once. Callers therefore never hold a write transaction open
while they wait for a request (on SQLite it would block the gate's own write).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import Engine, select, text, update

from app.core.models import Base, RequestGate

gates = Base.metadata.tables[RequestGate.__tablename__]

ARXIV = "arxiv"
# Waiting for a request in flight, poll this often (a fraction of the interval, within bounds).
_MIN_POLL_SECONDS, _MAX_POLL_SECONDS = 0.005, 1.0


@dataclass
class Slot:
    """The right to send one request; :meth:`defer` pushes the next one further back."""

    not_before_next: float = 0.0

    def defer(self, seconds: float) -> None:
        self.not_before_next = max(self.not_before_next, seconds)


class Gate:
    """A named gate on ``engine``'s database; ``interval`` seconds between requests."""

    def __init__(
        self,
        engine: Engine,
        *,
        interval: float,
        lease: float,
        name: str = ARXIV,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._engine, self._name, self._interval, self._lease = engine, name, interval, lease
        self._clock, self._sleep = clock, sleep
        self._holder = f"{uuid.uuid4().hex[:16]}"
        self._ensure_row()

    @contextmanager
    def slot(self) -> Iterator[Slot]:
        """Wait for the gate, hold it while the block runs (one request), then release it."""
        self._claim()
        slot = Slot()
        try:
            yield slot
        finally:
            self._release(slot.not_before_next)

    def _ensure_row(self) -> None:
        # ON CONFLICT DO NOTHING is understood by SQLite (3.24+) and PostgreSQL alike.
        with self._engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO request_gates (name, held_until, next_request_at) "
                    "VALUES (:name, 0, 0) ON CONFLICT DO NOTHING"
                ),
                {"name": self._name},
            )

    def _claim(self) -> None:
        while True:
            now = self._clock()
            with self._engine.begin() as connection:
                claimed = connection.execute(
                    update(gates)
                    .where(gates.c.name == self._name)
                    .where(gates.c.held_until <= now, gates.c.next_request_at <= now)
                    .values(held_until=now + self._lease, holder=self._holder)
                )
                if claimed.rowcount == 1:
                    return
                state = connection.execute(
                    select(gates.c.held_until, gates.c.next_request_at).where(
                        gates.c.name == self._name
                    )
                ).one_or_none()
            if state is None:  # the row was deleted under us (a wiped table): start afresh
                self._ensure_row()
                continue
            self._sleep(self._wait(now, state.held_until, state.next_request_at))

    def _wait(self, now: float, held_until: float, next_request_at: float) -> float:
        if held_until > now:  # a request is in flight; its release sets the next time
            poll = min(max(self._interval / 4, _MIN_POLL_SECONDS), _MAX_POLL_SECONDS)
            return min(poll, held_until - now)
        return max(next_request_at - now, _MIN_POLL_SECONDS)

    def _release(self, not_before_next: float) -> None:
        now = self._clock()
        with self._engine.begin() as connection:
            connection.execute(
                update(gates)
                .where(gates.c.name == self._name, gates.c.holder == self._holder)
                .values(
                    held_until=0.0,
                    holder=None,
                    next_request_at=now + max(self._interval, not_before_next),
                )
            )
