"""Which database a request reads from, when the deployment has standbys
(``PAPERBOY_DATABASE_REPLICA_URLS``).

- A GET or HEAD reads from a fit standby (``app.core.replicas``); any other method, the primary.
- A reader's own pages read their writes: an answer to a POST that went through sets a cookie
  with the primary's log position, and for ``PAPERBOY_READ_YOUR_WRITES_SECONDS`` their reads go
  only to a standby that has replayed that far, else to the primary.
- A request that revalidates what it holds (``If-None-Match``, ``If-Modified-Since``) reads
  from the primary, and none of the process's kept pages (``app.web.memo``) that a standby
  that was behind may have built: an answer it was given is never followed by an older one.
  Pages kept from the primary are served to it, so revalidating cannot make every page be
  built again.
- A standby that fails to give a connection is marked down and the next, or the primary,
  answers instead: a standby stopping between requests costs no request an error. One that
  goes away in the middle of a request (answered 503, retry) is marked down too.
- Searches follow the same rule as the request they serve.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar

from fastapi import Request, Response
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.core.db_faults import connection_lost
from app.core.replicas import STANDBY, Replicas, said
from app.core.wal import PositionError, format_position, parse_position
from app.web.memo import built_afresh, reading_standbys

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
