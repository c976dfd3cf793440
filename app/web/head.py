"""HEAD on every GET route: uptime monitors and link checkers use it.

FastAPI answers HEAD only where a route declares it, so a HEAD request is served as the GET it
mirrors: the GET's status and headers (its Content-Length too, as RFC 9110 allows for HEAD)
and an empty body. The server still sees a HEAD and sends no body bytes either way.

Not a middleware of its own: the outermost one (``app.web.request_ids``) passes each request
through :func:`as_get`, so a GET, which needs nothing here, pays for no layer.
"""

from __future__ import annotations

from starlette.types import Message, Scope, Send


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
