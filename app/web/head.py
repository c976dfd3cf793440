"""HEAD on every GET route (ASGI middleware): uptime monitors and link checkers use it.

FastAPI answers HEAD only where a route declares it, so a HEAD request is served here as the
GET it mirrors: the GET's status and headers (its Content-Length too, as RFC 9110 allows for
HEAD) and an empty body. The server still sees a HEAD and sends no body bytes either way.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGetMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def send_without_body(message: Message) -> None:
            if message["type"] != "http.response.body":
                await send(message)
            elif not message.get("more_body", False):
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        await self.app({**scope, "method": "GET"}, receive, send_without_body)
