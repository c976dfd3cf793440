"""Who may search now: one of the process's search slots, and each client's share of them.

A search computes for tens to hundreds of milliseconds of CPU, so a process runs at most
``shared`` at once; more would only contend for the cores. The rest wait, up to
``busy_wait_seconds`` and without holding a database connection, then are told "busy" (503).

Each client (:func:`app.web.limits.client_key`) is refused at once (429, with Retry-After),
never queued on the slots, past either of its own limits:

- ``per_client`` searches in flight, waiting ones included, fewer than the slots: so one
  client can never hold every slot, and others' searches never wait behind its own;
- its searches a minute, a token bucket at the JSON API's ``api_rate_limit_per_minute`` and
  ``api_rate_limit_burst`` (by default 120 a minute, 30 at once; 0 turns it off), counted
  apart from API requests: a reader's searches and pages of results fit, while a script
  that searches without pause gets two a second, whose CPU time no longer slows everyone's
  pages.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

from app.core.refusals import Busy, Limited
from app.web.limits import InFlight, RateLimiter, TooManyAtOnceError

# What a client told that its other searches still run waits before it asks again.
IN_FLIGHT_RETRY_SECONDS = 2
# What a search that found every slot taken tells its client to wait.
BUSY_RETRY_SECONDS = 2


class SearchBusyError(Busy, RuntimeError):
    """Every search slot stayed taken for the whole wait."""


class SearchRefusedError(Limited):
    """A client's search refused at once, past its own limits; ``retry_after`` in seconds."""

    def __init__(self, reason: str, retry_after: int) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


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
    """The process's search slots and each client's limits (thread-safe: searches run in the
    thread pool); ``rate`` counts each client's searches (None: no limit a minute)."""

    def __init__(
        self, limits: SearchLimits = SEARCH_LIMITS, rate: RateLimiter | None = None
    ) -> None:
        self._limits = limits
        self._slots = threading.BoundedSemaphore(limits.shared)
        self._in_flight = InFlight(limits.per_client)
        self._rate = rate or RateLimiter(per_minute=0, burst=1)
        self._rate_lock = threading.Lock()

    @contextmanager
    def turn(self, client: str) -> Iterator[None]:
        """Hold a slot for ``client``'s search: :class:`SearchRefusedError` at once past the
        client's limits, :class:`SearchBusyError` if no slot comes free in time."""
        with ExitStack() as held:
            try:
                held.enter_context(self._in_flight.hold(client))
            except TooManyAtOnceError:
                raise SearchRefusedError(
                    "your other searches are still running; retry once they have finished",
                    IN_FLIGHT_RETRY_SECONDS,
                ) from None
            self._spend(client)
            if not self._slots.acquire(timeout=self._limits.busy_wait_seconds):
                raise SearchBusyError(
                    "too many searches at once; retry in a moment", BUSY_RETRY_SECONDS
                )
            held.callback(self._slots.release)
            yield

    def _spend(self, client: str) -> None:
        """Take one of ``client``'s searches of the minute (a refused one takes none)."""
        with self._rate_lock:
            wait = self._rate.retry_after(client)
        if wait is not None:
            raise SearchRefusedError(
                f"too many searches from you in the last minute; retry in {wait} s", wait
            )
