"""Which database a request reads from, when the deployment has standbys
(``PAPERBOY_DATABASE_REPLICA_URLS``).

- A GET or HEAD reads from a fit standby (``app.core.replicas``); any other method, the primary.
- A reader's own pages read their writes: an answer to a POST that went through sets a cookie
  with the primary's log position, and for ``PAPERBOY_READ_YOUR_WRITES_SECONDS`` their reads go
  only to a standby that has replayed that far, else to the primary.
- A request that revalidates what it holds (``If-None-Match``, ``If-Modified-Since``) reads
  from the primary, and none of the process's kept pages (``app.web.memo``), which a standby
  that was behind may have built: an answer it was given is never followed by an older one.
- A standby that fails to give a connection is marked down and the primary answers instead:
  a standby stopping costs no request an error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import Request, Response
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.core.replicas import Replicas
from app.core.wal import PositionError, format_position, parse_position
from app.web.memo import built_afresh

POSITION_COOKIE = "paperboy_wrote"
READS = frozenset({"GET", "HEAD"})
REVALIDATING = ("if-none-match", "if-modified-since")


def reads_from_standby(replicas: Replicas | None, request: Request) -> bool:
    """Whether a fit standby may answer ``request`` (else the primary does)."""
    if replicas is None or request.method not in READS:
        return False
    return not revalidating(request)


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


async def open_session(
    replicas: Replicas | None, primary: sessionmaker[Session], request: Request
) -> Session:
    """The request's session: on a standby when :func:`reads_from_standby` allows one that
    has replayed the reader's last write and gives a connection now; else on the primary
    (opened lazily, as without standbys)."""
    if replicas is None or not reads_from_standby(replicas, request):
        return primary()
    found = await run_in_threadpool(replicas.session_on_standby, written_at(request))
    return primary() if found is None else found


def any_reader_session(replicas: Replicas, primary: sessionmaker[Session]) -> Session:
    """A session for a read no reader's write bears on (search): a fit standby's, or the
    primary's."""
    return replicas.session_on_standby(None) or primary()


Next = Callable[[Request], Awaitable[Response]]


def route_reads(
    replicas: Replicas, max_age: int, secure: bool
) -> Callable[[Request, Next], Awaitable[Response]]:
    """Middleware: a revalidation is built from the primary afresh, never from the process's
    kept pages; after a write that went through, the primary's position goes in a cookie."""

    async def middleware(request: Request, call_next: Next) -> Response:
        if request.method in READS:
            if not revalidating(request):
                return await call_next(request)
            with built_afresh():  # read from the primary, not from kept copies
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
