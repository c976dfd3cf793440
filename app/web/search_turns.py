"""Who may search now: one of the process's search slots, and at most a few per client.

A search computes for tens to hundreds of milliseconds of CPU, so a process runs at most
``shared`` at once; more would only contend for the cores. The rest wait, up to
``busy_wait_seconds`` and without holding a database connection, then are told "busy" (503).

A client may have at most ``per_client`` searches in flight, waiting ones included, fewer
than the slots: one more is told at once to retry later (429) instead of waiting for a slot.
So one client can never hold every slot, and others' searches never wait behind its own.
Clients are told apart by :func:`app.web.limits.client_key`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from app.web.limits import InFlight


class SearchBusyError(RuntimeError):
    """Every search slot stayed taken for the whole wait."""


@dataclass(frozen=True, slots=True)
class SearchLimits:
    shared: int = 4  # searches computed at once in a process
    per_client: int = 2  # searches of one client in flight at once, waiting ones included
    busy_wait_seconds: float = 10.0  # how long a search waits for a slot

    def __post_init__(self) -> None:
        if not 0 < self.per_client < self.shared:
            raise ValueError("a client's share must leave at least one search slot to others")


SEARCH_LIMITS = SearchLimits()


class SearchTurns:
    """The process's search slots and each client's share of them (thread-safe: searches
    run in the thread pool)."""

    def __init__(self, limits: SearchLimits = SEARCH_LIMITS) -> None:
        self._limits = limits
        self._slots = threading.BoundedSemaphore(limits.shared)
        self._in_flight = InFlight(limits.per_client)

    @contextmanager
    def turn(self, client: str) -> Iterator[None]:
        """Hold a slot for ``client``'s search: :class:`app.web.limits.TooManyAtOnceError` at
        once if it has its share in flight, :class:`SearchBusyError` if no slot comes free."""
        with self._in_flight.hold(client):
            if not self._slots.acquire(timeout=self._limits.busy_wait_seconds):
                raise SearchBusyError("too many searches at once; retry in a moment")
            try:
                yield
            finally:
                self._slots.release()
