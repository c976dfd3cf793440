"""A small in-process cache of rendered responses, keyed by what they were built from (pure).

Editions never change once published, so a body built from edition ``id`` can be kept; the
time-to-live bounds how stale the community signals inside it (HF upvotes) may get.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TypeVar

from cachetools import TTLCache

T = TypeVar("T")


@dataclass
class Memo:
    """Values built once per key, kept ``ttl_seconds`` from when they were built, the least
    recently used dropped past ``max_entries`` (cachetools' TTLCache, behind a lock: it is not
    thread-safe, and requests run on a thread pool)."""

    ttl_seconds: float
    max_entries: int = 256
    clock: Callable[[], float] = time.monotonic
    _entries: TTLCache[Hashable, object] = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._entries = TTLCache(self.max_entries, self.ttl_seconds, timer=self.clock)

    def get(self, key: Hashable, build: Callable[[], T]) -> T:
        """The value kept for ``key`` if still fresh, else ``build()`` (kept for next time).

        Built outside the lock, so a slow page never holds up the others; two requests that
        miss together both build, and the later one's value is kept.
        """
        with self._lock:
            kept = self._entries.get(key, _MISSING)
        if kept is not _MISSING:
            return kept  # type: ignore[return-value]
        value = build()
        with self._lock:
            self._entries[key] = value
        return value


_MISSING = object()
