"""Compressed answers: brotli or gzip, as the client accepts, for what anyone may cache.

Only a public answer (``Cache-Control: public``: pages, feeds and the API kept by ``cached``)
or a static file is compressed, so no answer that carries a secret (a CSRF token, a private
link's token, a reader's own page) is ever compressed beside text an attacker controls (the
BREACH attack). An answer under ``MIN_SIZE`` bytes, of a type that does not shrink (images,
fonts) or already encoded is sent as it is. A compressed answer's ETag names its encoding
(``"tag-br"``), as RFC 9110 asks of different bytes; the middleware takes the encoding off a
request's ``If-None-Match`` before anything inside reads it, so each names the one body. The
compressed bodies are kept by ETag: a page served again from the memo is not compressed again.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable

import brotli
from cachetools import LRUCache
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MIN_SIZE = 1024
# Kept compressed bodies, in bytes; the memo's pages and feeds fit many times over.
KEPT_BYTES = 32 * 1024 * 1024
COMPRESSIBLE = (
    "text/",
    "application/json",
    "application/xml",
    "application/rss+xml",
    "application/atom+xml",
    "application/feed+json",
    "application/javascript",
    "image/svg+xml",
)
ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    # Quality 5: most of the size gain of 11 at a small part of its time, for every request.
    "br": lambda body: brotli.compress(body, quality=5),
    "gzip": lambda body: gzip.compress(body, compresslevel=6, mtime=0),
}


def chosen_encoding(accept_encoding: str) -> str | None:
    """brotli, else gzip, if the client accepts it (a ``q=0`` refuses); None for neither."""
    accepted = set()
    for part in accept_encoding.lower().split(","):
        name, _, params = part.strip().partition(";")
        refused = params.replace(" ", "") in {"q=0", "q=0.0", "q=0.00", "q=0.000"}
        if name and not refused:
            accepted.add(name.strip())
    return next((name for name in ENCODERS if name in accepted or "*" in accepted), None)


def encoded_tag(tag: str, encoding: str) -> str:
    """``"abc"`` as sent with ``encoding``: ``"abc-br"`` (a weak tag stays weak)."""
    return f'{tag[:-1]}-{encoding}"' if tag.endswith('"') else tag


def plain_tags(raw: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """Request headers with each ``If-None-Match`` tag's encoding suffix taken off."""
    return [
        (name, _without_encoding(value) if name.lower() == b"if-none-match" else value)
        for name, value in raw
    ]


def _without_encoding(value: bytes) -> bytes:
    for encoding in ENCODERS:
        value = value.replace(f'-{encoding}"'.encode(), b'"')
    return value


def eligible(path: str, headers: Headers) -> bool:
    """Whether an answer may be compressed: public or static, compressible, not yet encoded."""
    if "content-encoding" in headers:
        return False
    kind = headers.get("content-type", "")
    if not kind.startswith(COMPRESSIBLE):
        return False
    public = "public" in headers.get("cache-control", "").lower()
    return public or path.startswith("/static/")


class CompressionMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.kept: LRUCache[tuple[str, str], bytes] = LRUCache(KEPT_BYTES, getsizeof=len)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        asked = Headers(scope=scope)
        encoding = chosen_encoding(asked.get("accept-encoding", ""))
        if "if-none-match" in asked:
            scope = {**scope, "headers": plain_tags(scope["headers"])}
        started: Message | None = None
        chunks: list[bytes] = []

        async def compress(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                headers = Headers(raw=message["headers"])
                if message["status"] != 200 or not eligible(scope["path"], headers):
                    await send(message)
                elif encoding is None:  # sent as it is, but a cache must know it could vary
                    vary = MutableHeaders(raw=list(message["headers"]))
                    vary.add_vary_header("Accept-Encoding")
                    await send({**message, "headers": vary.raw})
                else:
                    started = message
                return
            if started is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            start, body = self._finish(started, b"".join(chunks), encoding)
            await send(start)
            await send({"type": "http.response.body", "body": body, "more_body": False})

        await self.app(scope, receive, compress)

    def _finish(self, start: Message, body: bytes, encoding: str | None) -> tuple[Message, bytes]:
        headers = MutableHeaders(raw=list(start["headers"]))
        headers.add_vary_header("Accept-Encoding")
        if encoding is None or len(body) < MIN_SIZE:
            return {**start, "headers": headers.raw}, body
        tag = headers.get("etag")
        packed = self._compressed(tag, encoding, body)
        headers["Content-Encoding"] = encoding
        headers["Content-Length"] = str(len(packed))
        if tag is not None:
            headers["ETag"] = encoded_tag(tag, encoding)
        return {**start, "headers": headers.raw}, packed

    def _compressed(self, tag: str | None, encoding: str, body: bytes) -> bytes:
        if tag is None:
            return ENCODERS[encoding](body)
        key = (tag, encoding)
        found = self.kept.get(key)
        if found is None:
            found = ENCODERS[encoding](body)
            self.kept[key] = found
        return found
