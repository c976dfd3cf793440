"""A small in-process cache of rendered responses, keyed by what they were built from (pure).

Editions never change once published, so a body built from edition ``id`` can be kept; the
time-to-live bounds how stale the community signals inside it (HF upvotes) may get.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")
# What :meth:`Memo._fresh` answers for a key with no fresh value (None may be a kept value).
_MISSING = object()


# Set for one request's context: no value kept from a build that may have read a standby is
# served to it.
_AFRESH: ContextVar[bool] = ContextVar("memo_afresh", default=False)
# Set for one request's context: what it builds may have been read from a standby.
_FROM_STANDBY: ContextVar[bool] = ContextVar("memo_from_standby", default=False)


@contextmanager
def built_afresh() -> Iterator[None]:
    """Within the block (this request's context, its threads included), the memo serves no
    value that a request reading standbys built: what a revalidation reads from the primary
    must not be an older kept copy built from a standby that was behind. Values built from
    the primary are served, so revalidations cannot make every page be built again."""
    token = _AFRESH.set(True)
    try:
        yield
    finally:
        _AFRESH.reset(token)


@contextmanager
def reading_standbys() -> Iterator[None]:
    """Within the block, what is built and kept may have been read from a standby."""
    token = _FROM_STANDBY.set(True)
    try:
        yield
    finally:
        _FROM_STANDBY.reset(token)


@dataclass
class Memo:
    """Values built once per key, kept ``ttl_seconds`` from when they were built, the least
    recently used dropped past ``max_entries``.

    Owned rather than cachetools' TTLCache: every request of the JSON feed and the pages reads
    it, behind a lock (requests run on a thread pool), and TTLCache's bookkeeping held that
    lock long enough to cost the feed measurable throughput at 64 concurrent requests
    (docs/benchmarks.md, "Web serving").
    """

    ttl_seconds: float
    max_entries: int = 256
    clock: Callable[[], float] = time.monotonic
    # Whether :func:`built_afresh` applies: not to values never built from a standby.
    afresh_on_revalidation: bool = True
    # Per key: when built, the value, and whether it may have been read from a standby.
    _entries: OrderedDict[Hashable, tuple[float, object, bool]] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def peek(self, key: Hashable) -> object | None:
        """The value kept for ``key`` if still fresh, else None; builds nothing."""
        kept = self._fresh(key, self.clock())
        return None if kept is _MISSING else kept

    def get(self, key: Hashable, build: Callable[[], T]) -> T:
        """The value kept for ``key`` if still fresh, else ``build()`` (kept for next time).

        Built outside the lock, so a slow page never holds up the others; two requests that
        miss together both build, and the later one's value is kept. Inside
        :func:`built_afresh`, a value built under :func:`reading_standbys` is built again.
        A kept None is a value like any other (an edition that is not stored).
        """
        now = self.clock()
        kept = self._fresh(key, now)
        if kept is not _MISSING:
            return kept  # type: ignore[return-value]
        value = build()
        with self._lock:
            self._entries[key] = (now, value, _FROM_STANDBY.get())
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return value

    def _fresh(self, key: Hashable, now: float) -> object:
        """The value kept for ``key`` if still fresh at ``now``, else :data:`_MISSING`."""
        with self._lock:
            kept = self._entries.get(key)
            afresh = self.afresh_on_revalidation and _AFRESH.get()
            if kept is None or now - kept[0] >= self.ttl_seconds or (afresh and kept[2]):
                return _MISSING
            self._entries.move_to_end(key)
            return kept[1]
