"""Which database a request reads from, when the deployment has standbys
(``PAPERBOY_DATABASE_REPLICA_URLS``).

- A GET or HEAD reads from a fit standby (``app.core.replicas``); any other method, the primary.
- A reader's own pages read their writes: an answer to a POST that went through sets a cookie
  with the primary's log position, and for ``PAPERBOY_READ_YOUR_WRITES_SECONDS`` their reads go
  only to a standby that has replayed that far, else to the primary.
- A request that revalidates what it holds (``If-None-Match``, ``If-Modified-Since``) reads
  from the primary, and none of the process's kept pages (:class:`Memo`) that a standby
  that was behind may have built: an answer it was given is never followed by an older one.
  Pages kept from the primary are served to it, so revalidating cannot make every page be
  built again.
- A standby that fails to give a connection is marked down and the next, or the primary,
  answers instead: a standby stopping between requests costs no request an error. One that
  goes away in the middle of a request (answered 503, retry) is marked down too.
- Searches follow the same rule as the request they serve.

The process's memo (:class:`Memo`, a small in-process cache of rendered responses keyed by
what they were built from) keeps, with each value, whether it may have been read from a
standby. Editions never change once published, so a body built from edition ``id`` can be
kept; the time-to-live bounds how stale the community signals inside it (HF upvotes) may get.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar

from fastapi import Request, Response
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.core.db_faults import connection_lost
from app.core.replicas import STANDBY, Replicas, said
from app.core.wal import PositionError, format_position, parse_position

POSITION_COOKIE = "paperboy_wrote"
READS = frozenset({"GET", "HEAD"})
REVALIDATING = ("if-none-match", "if-modified-since")
# What the request in hand may read from: PRIMARY_ONLY, a position a standby must have
# replayed, or None (any fit standby). Set by the middleware for each request, so that every
# session the request opens (its own, a search's, in any thread) follows it; without the
# middleware (no standbys), the primary.
PRIMARY_ONLY = -1
_READS_AT: ContextVar[int | None] = ContextVar("reads_at", default=PRIMARY_ONLY)


def requirement(request: Request) -> int | None:
    """PRIMARY_ONLY for a write or a revalidation; else the reader's last write's position,
    while its cookie lives (None: any fit standby)."""
    if request.method not in READS or revalidating(request):
        return PRIMARY_ONLY
    return written_at(request)


def revalidating(request: Request) -> bool:
    """Whether the client holds an answer and asks if it is still current."""
    return any(name in request.headers for name in REVALIDATING)


def written_at(request: Request) -> int | None:
    """The primary's position after this reader's last write, while its cookie lives."""
    kept = request.cookies.get(POSITION_COOKIE)
    if not kept:
        return None
    try:
        return parse_position(kept)
    except PositionError:
        return 0  # a cookie that says nothing readable: any fit standby is at or past 0


async def open_session(replicas: Replicas | None, primary: sessionmaker[Session]) -> Session:
    """The request's session: on a standby when the request may read from one that has
    replayed what it needs and gives a connection now; else on the primary (opened lazily,
    as without standbys)."""
    if replicas is None or _READS_AT.get() == PRIMARY_ONLY:
        return primary()
    found = await run_in_threadpool(replicas.session_on_standby, _READS_AT.get())
    return primary() if found is None else found


def any_reader_session(replicas: Replicas, primary: sessionmaker[Session]) -> Session:
    """A session for a search, under the same rule as the request's own."""
    at_least = _READS_AT.get()
    if at_least == PRIMARY_ONLY:
        return primary()
    return replicas.session_on_standby(at_least) or primary()


def lost_standby(replicas: Replicas | None, session: Session, error: BaseException) -> None:
    """A request whose standby went away mid-way: the next ones read elsewhere."""
    index = session.info.get(STANDBY)
    if replicas is None or index is None or not isinstance(error, DBAPIError):
        return
    if connection_lost(error):
        replicas.mark_down(index, said(error))


Next = Callable[[Request], Awaitable[Response]]


def route_reads(
    replicas: Replicas, max_age: int, secure: bool
) -> Callable[[Request, Next], Awaitable[Response]]:
    """Middleware: a revalidation is built from the primary afresh, never from the process's
    kept pages; after a write that went through, the primary's position goes in a cookie."""

    async def middleware(request: Request, call_next: Next) -> Response:
        needed = _READS_AT.set(requirement(request))
        try:
            return await _answer(request, call_next)
        finally:
            _READS_AT.reset(needed)

    async def _answer(request: Request, call_next: Next) -> Response:
        if request.method in READS:
            if revalidating(request):
                with built_afresh():  # read from the primary, not from standbys' copies
                    return await call_next(request)
            with reading_standbys():
                return await call_next(request)
        response = await call_next(request)
        if response.status_code >= 400:
            return response
        try:
            position = await run_in_threadpool(replicas.primary_position)
        except SQLAlchemyError:
            return response  # the primary is away: no position to keep
        response.set_cookie(
            POSITION_COOKIE,
            format_position(position),
            max_age=max_age,
            httponly=True,
            samesite="lax",
            secure=secure,
        )
        return response

    return middleware


# The memo of rendered responses.
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
