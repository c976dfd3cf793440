"""Per-client limits: who counts as one client, and the JSON API's token bucket per client
(pure, clock injected).

Each process keeps its own buckets: with N web workers a client gets up to N times the rate,
which is fine for a guard against runaway scripts (documented in the README).
"""

from __future__ import annotations

import functools
import ipaddress
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from cachetools import LRUCache

MAX_CLIENTS = 10_000
# A host is given a whole IPv6 /64 (SLAAC, RFC 7421) and may take any of its addresses.
IPV6_CLIENT_PREFIX = 64


# Every rate-limited request asks, and most come from addresses seen a moment ago.
@functools.lru_cache(maxsize=4096)
def client_key(host: str) -> str:
    """What per-client limits count a client's network address as (pure).

    An IPv6 address counts as its /64, an IPv4-mapped IPv6 address as its IPv4 address, an
    IPv4 address as itself, and text that is no address (a test client's name) as itself.
    """
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv4Address):
        return str(address)
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    unscoped = ipaddress.IPv6Address(int(address))  # a link-local's "%eth0" names no network
    return str(ipaddress.IPv6Network((unscoped, IPV6_CLIENT_PREFIX), strict=False))


@dataclass
class RateLimiter:
    """``per_minute`` requests a minute on average, bursts of up to ``burst``; 0 disables."""

    per_minute: int
    burst: int
    clock: Callable[[], float] = time.monotonic
    # (tokens, last seen) per client; past MAX_CLIENTS the client seen longest ago, whose
    # bucket has refilled most, is forgotten, which bounds memory.
    _buckets: LRUCache[str, tuple[float, float]] = field(
        default_factory=lambda: LRUCache(MAX_CLIENTS)
    )

    def retry_after(self, client: str) -> int | None:
        """Take a token for ``client``; None if allowed, else whole seconds to wait."""
        if self.per_minute <= 0:
            return None
        now, rate = self.clock(), self.per_minute / 60.0
        tokens, last = self._buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * rate)
        if tokens < 1.0:
            self._buckets[client] = (tokens, now)
            return max(1, math.ceil((1.0 - tokens) / rate))
        self._buckets[client] = (tokens - 1.0, now)
        return None


class TooManyAtOnceError(Exception):
    """The client already has as many requests in flight as it may."""


class InFlight:
    """At most ``per_client`` requests of one client at once (thread-safe: handlers run in the
    thread pool). Unlike a rate, it frees a place as soon as a request ends."""

    def __init__(self, per_client: int) -> None:
        self._per_client = per_client
        self._held: Counter[str] = Counter()
        self._lock = threading.Lock()

    @contextmanager
    def hold(self, client: str) -> Iterator[None]:
        """A place for one of ``client``'s requests; :class:`TooManyAtOnceError` if none."""
        with self._lock:
            if self._held[client] >= self._per_client:
                raise TooManyAtOnceError(client)
            self._held[client] += 1
        try:
            yield
        finally:
            with self._lock:
                self._held[client] -= 1
                if not self._held[client]:
                    del self._held[client]  # so it holds only the clients in flight

    def __len__(self) -> int:
        """How many clients have requests in flight."""
        with self._lock:
            return len(self._held)
