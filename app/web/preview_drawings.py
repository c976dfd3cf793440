"""Link previews as the web serves them, at a cost that one client cannot multiply.

An image the daily job stored (``app.services.previews.stored``) is read from its file. Any
other is drawn on demand, which takes a core for tens of milliseconds or more, so drawing is
bounded three ways:

- each image is drawn at most once at a time: requests for an image being drawn wait for that
  drawing, and a drawn image is kept (``kept_seconds``, the ``kept`` most recent);
- drawings run in a small pool of their own, never in the thread pool pages use, with at most
  ``waiting`` more queued behind it: past that the site is busy (503 with ``Retry-After``);
- each client (:func:`app.web.forms.client_host`) may start
  ``PAPERBOY_PREVIEW_DRAWINGS_PER_MINUTE`` drawings a minute and ``…_BURST`` at once: past
  that, 429 with ``Retry-After``. Waiting for a drawing another request started, or reading a
  stored or kept image, costs a client nothing.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from app.core.refusals import Limited
from app.services.previews.stored import PreviewKey, read_stored
from app.web.caching import Rendered, rendered
from app.web.limits import RateLimiter
from app.web.read_routing import Memo


@dataclass(frozen=True, slots=True)
class DrawingLimits:
    workers: int = 1  # images drawn at once in a process
    waiting: int = 16  # drawings queued behind those before the site says it is busy
    # A preview shows upvotes, which move: one drawn on demand is redrawn after an hour.
    kept_seconds: float = 3600.0
    kept: int = 300


DRAWING_LIMITS = DrawingLimits()
# What a request told the drawings are too many waits before it asks again.
BUSY_RETRY_SECONDS = 5


class DrawingRefusedError(Limited):
    """A drawing refused: the client's rate is spent, or the pool's queue is full."""

    def __init__(self, reason: str, status: int, retry_after: int) -> None:
        super().__init__(reason)
        self.status = status
        self.retry_after = retry_after


class PreviewDrawings:
    """The images stored under ``directory``, and the drawings of the rest (thread-safe);
    ``rate`` counts each client's drawings."""

    def __init__(
        self, directory: Path, rate: RateLimiter, limits: DrawingLimits = DRAWING_LIMITS
    ) -> None:
        self._directory = directory
        self._limits = limits
        self._kept = Memo(limits.kept_seconds, limits.kept, afresh_on_revalidation=False)
        self._pool: ThreadPoolExecutor | None = None  # started by the first drawing
        self._rate = rate
        self._drawing: dict[PreviewKey, Future[Rendered]] = {}
        self._waiting: Counter[PreviewKey] = Counter()
        self._lock = threading.Lock()

    async def image(self, key: PreviewKey, client: str, draw: Callable[[], Rendered]) -> Rendered:
        """The image of ``key``: stored, kept, or drawn by ``draw`` (whose errors propagate
        to every request waiting for it); :class:`DrawingRefusedError` past the limits."""
        # On the event loop: a stat and a read of tens of KB from the page cache cost less
        # than the hop to a thread, and each request of a flood takes that path first.
        stored = read_stored(self._directory, key, time.time())
        if stored is not None:
            return rendered(stored)
        drawing = self._kept_or_drawing(key, client, draw)
        try:
            # Shielded: a client that goes away must not cancel a drawing others wait for.
            return await asyncio.shield(asyncio.wrap_future(drawing))
        finally:
            with self._lock:
                self._waiting[key] -= 1
                if self._waiting[key] <= 0:
                    del self._waiting[key]

    def waiting_for(self, key: PreviewKey) -> int:
        """How many requests wait for the image of ``key`` now."""
        with self._lock:
            return self._waiting[key]

    def close(self) -> None:
        """Stop the pool, dropping the drawings queued (the app is stopping); a drawing asked
        for later starts a new pool, as an app started again does."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def _kept_or_drawing(
        self, key: PreviewKey, client: str, draw: Callable[[], Rendered]
    ) -> Future[Rendered]:
        started = None
        with self._lock:
            kept = self._kept.peek(key)
            if isinstance(kept, Rendered):
                running: Future[Rendered] = Future()
                running.set_result(kept)
            elif (running_now := self._drawing.get(key)) is not None:
                running = running_now
            else:
                running = started = self._start(key, client, draw)
            self._waiting[key] += 1
        if started is not None:  # outside the lock: a finished drawing calls back at once
            started.add_done_callback(lambda finished: self._forget(key, finished))
        return running

    def _start(
        self, key: PreviewKey, client: str, draw: Callable[[], Rendered]
    ) -> Future[Rendered]:
        """The drawing of ``key`` put in the pool, if the limits allow it (lock held)."""
        self._admit(client)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._limits.workers, "preview-drawing")
        started = self._pool.submit(self._kept.get, key, draw)
        self._drawing[key] = started
        return started

    def _admit(self, client: str) -> None:
        """Refuse a new drawing past the queue's bound or the client's rate (lock held)."""
        if len(self._drawing) >= self._limits.workers + self._limits.waiting:
            reason = "too many previews being drawn; retry in a moment"
            raise DrawingRefusedError(reason, 503, BUSY_RETRY_SECONDS)
        wait = self._rate.retry_after(client)
        if wait is not None:
            reason = f"too many previews drawn for you in the last minute; retry in {wait} s"
            raise DrawingRefusedError(reason, 429, wait)

    def _forget(self, key: PreviewKey, finished: Future[Rendered]) -> None:
        with self._lock:
            if self._drawing.get(key) is finished:
                del self._drawing[key]
