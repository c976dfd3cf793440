"""One id per web request, on its response (``X-Request-ID``) and on every log line it causes.

A proxy's id is kept when it is sane (so the proxy's log and Paperboy's share it), anything
else is replaced by a new one. The id lives in :data:`app.core.logs.REQUEST_ID`, which the
log handlers read. It is set, never reset: uvicorn serves each request in a task of its own,
whose context ends with it, and its access line and the traceback of a crash are written
after the app has returned or raised, still in that task.

HEAD on every GET route: uptime monitors and link checkers use it.

FastAPI answers HEAD only where a route declares it, so a HEAD request is served as the GET it
mirrors: the GET's status and headers (its Content-Length too, as RFC 9110 allows for HEAD)
and an empty body. The server still sees a HEAD and sends no body bytes either way.

Not a layer of its own: the request-id middleware passes each request through
:func:`as_get`, so a GET, which needs nothing here, pays for no layer.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.logs import REQUEST_ID

HEADER = "X-Request-ID"
# As ASGI carries header names: lower case, in bytes.
_RAW_HEADER = HEADER.lower().encode("latin-1")
# What a proxy sends (nginx's $request_id, a UUID) and nothing that could forge a log line.
SANE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def chosen_id(offered: str | None) -> str:
    """The client's or proxy's id if sane, else a new one (pure but for the new one)."""
    if offered is not None and SANE_ID.fullmatch(offered):
        return offered
    return uuid.uuid4().hex


def offered_id(raw: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The request's first ``X-Request-ID``, if any (read straight from the ASGI headers:
    every request passes here, and a ``Headers`` object costs more than the look-up)."""
    for name, value in raw:
        if name == _RAW_HEADER:
            return value.decode("latin-1")
    return None


def with_id(
    raw: Iterable[tuple[bytes, bytes]], raw_id: tuple[bytes, bytes]
) -> list[tuple[bytes, bytes]]:
    """A new header list: ``raw`` with the id in place of any the answer carried already,
    else after the others (the caller's list, which a response may share, is not changed)."""
    headers = list(raw)
    for index, (name, _) in enumerate(headers):
        if name == _RAW_HEADER:
            rest = [header for header in headers[index + 1 :] if header[0] != _RAW_HEADER]
            return [*headers[:index], raw_id, *rest]
    headers.append(raw_id)
    return headers


def current_request_id() -> str | None:
    return REQUEST_ID.get()


class RequestIdMiddleware:
    """The id of each request, set before anything inside can log; also the layer that
    serves HEAD as GET (``app.web.middleware.request_ids``), so that the two cost one layer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = chosen_id(offered_id(scope["headers"]))
        REQUEST_ID.set(request_id)
        raw_id = (_RAW_HEADER, request_id.encode("latin-1"))

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = with_id(message.get("headers", ()), raw_id)
            await send(message)

        # Everything inside serves a HEAD as the GET it mirrors.
        scope, answer = as_get(scope, send_with_id)
        await self.app(scope, receive, answer)


def as_get(scope: Scope, send: Send) -> tuple[Scope, Send]:
    """For a HEAD request, the GET scope to serve and a ``send`` that drops the body; any
    other request as it is."""
    if scope["method"] != "HEAD":
        return scope, send

    async def send_without_body(message: Message) -> None:
        if message["type"] != "http.response.body":
            await send(message)
        elif not message.get("more_body", False):
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    return {**scope, "method": "GET"}, send_without_body
