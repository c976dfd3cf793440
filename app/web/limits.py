"""Per-client rate limiting of the JSON API: a token bucket per client (pure, clock injected).

Each process keeps its own buckets: with N web workers a client gets up to N times the rate,
which is fine for a guard against runaway scripts (documented in the README).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

MAX_CLIENTS = 10_000


@dataclass
class RateLimiter:
    """``per_minute`` requests a minute on average, bursts of up to ``burst``; 0 disables."""

    per_minute: int
    burst: int
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)

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
        self._remember(client, (tokens - 1.0, now))
        return None

    def _remember(self, client: str, state: tuple[float, float]) -> None:
        if len(self._buckets) >= MAX_CLIENTS and client not in self._buckets:
            # Bound memory: forget every bucket (a full one is the same as none).
            self._buckets.clear()
        self._buckets[client] = state
