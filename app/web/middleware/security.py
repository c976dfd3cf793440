"""Security headers on every response, and the JSON API's rate limit (ASGI middleware).

The Content-Security-Policy allows only Paperboy's own scripts, styles and images: there is
no inline script or style anywhere, and no CDN, the API docs page (Swagger UI, served from
``/swagger-ui/`` by ``app.web.routes.docs``) included.

In production behind https (``PAPERBOY_PUBLIC_BASE_URL`` starts with ``https://``) every
response also carries ``Strict-Transport-Security`` for a year: a browser that saw it never
again speaks plain http to the site, so nobody on the way can strip TLS from a sign-in link.
It is never sent otherwise, since a browser would then refuse a site served over plain http.

A page opened by a link's token (``?token=``) sends only the site's origin as ``Referer``:
its styles, scripts and forms would otherwise carry the token into a proxy's access log.

Compressed answers: brotli or gzip, as the client accepts, for what anyone may cache.

Only a public answer (``Cache-Control: public``: pages, feeds and the API kept by ``cached``)
or a static file is compressed, so no answer that carries a secret (a CSRF token, a private
link's token, a reader's own page) is ever compressed beside text an attacker controls (the
BREACH attack). An answer under ``MIN_SIZE`` bytes, of a type that does not shrink (images,
fonts) or already encoded is sent as it is. A compressed answer's ETag names its encoding
(``"tag-br"``), as RFC 9110 asks of different bytes; the encoding is taken off a request's
``If-None-Match`` before the app reads it, so each names the one body. The
compressed bodies are kept by ETag: a page served again from the memo is not compressed again.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from dataclasses import dataclass

import brotli
from cachetools import LRUCache
from fastapi.responses import JSONResponse
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.config import Settings
from app.core.logs import carries_token
from app.web.limits import RateLimiter, client_key

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
    "Cross-Origin-Opener-Policy": "same-origin",
}
HSTS = "max-age=31536000; includeSubDomains"
# Not "no-referrer": with it a browser sends "Origin: null" on the page's forms, which the
# check of where a form comes from (app.web.forms) refuses.
TOKENED_REFERRER_POLICY = "strict-origin"
# The JSON API and the MCP endpoint, which answers the same data to assistants.
RATE_LIMITED_PREFIXES = ("/api/", "/mcp")


def security_headers(*, strict_transport: bool = False, tokened: bool = False) -> dict[str, str]:
    """The headers every response carries (pure); ``tokened``: a URL that holds a token."""
    headers = {**HEADERS, "Content-Security-Policy": CSP}
    if strict_transport:
        headers["Strict-Transport-Security"] = HSTS
    if tokened:
        headers["Referrer-Policy"] = TOKENED_REFERRER_POLICY
    return headers


def wants_strict_transport(settings: Settings) -> bool:
    return settings.env == "production" and settings.public_base_url.startswith("https://")


def _raw(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(name.lower().encode(), value.encode()) for name, value in headers.items()]


class SecurityMiddleware:
    """Adds the security headers to every response, rate-limits ``/api/`` and ``/mcp`` per
    client, and compresses what may be compressed (``app.web.middleware.security``).

    Plain ASGI rather than ``BaseHTTPMiddleware``: it only touches the response's start
    message and, for a compressed answer, its body. One middleware rather than two: every
    request pays for each layer it passes, and these two wrap the same ``send``.
    """

    def __init__(self, app: ASGIApp, limiter: RateLimiter, settings: Settings) -> None:
        self.app = app
        self.limiter = limiter
        self.compressor = Compressor()
        hsts = wants_strict_transport(settings)
        self.headers = _raw(security_headers(strict_transport=hsts))
        self.tokened_headers = _raw(security_headers(strict_transport=hsts, tokened=True))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query: bytes = scope.get("query_string", b"")
        tokened = bool(query) and carries_token(query.decode("latin-1"))
        extra = self.tokened_headers if tokened else self.headers
        # A refusal below is never public, so it passes the compressor as it is.
        scope, answer = self.compressor.sending(scope, send, extra)
        if _has_nul(scope):
            await bad_request("a NUL character has no place in a URL")(scope, receive, answer)
            return
        wait = self._wait(scope, scope["path"])
        if wait is not None:
            await too_many_requests(wait)(scope, receive, answer)
            return
        await self.app(scope, receive, answer)

    def _wait(self, scope: Scope, path: str) -> int | None:
        if not path.startswith(RATE_LIMITED_PREFIXES) or scope["method"] == "OPTIONS":
            return None
        if self.limiter.per_minute <= 0:  # no limit: the client's address need not be read
            return None
        client = scope.get("client")
        # Behind a proxy, run uvicorn with --proxy-headers so this is the real client.
        return self.limiter.retry_after(client_key(client[0] if client else "unknown"))


def _has_nul(scope: Scope) -> bool:
    """Whether the path or query holds a NUL, which no Paperboy URL has and PostgreSQL text
    cannot even hold: refused here once, rather than by every route."""
    query: bytes = scope.get("query_string", b"")
    return "\x00" in scope["path"] or b"%00" in query or b"\x00" in query


def bad_request(message: str) -> JSONResponse:
    return JSONResponse({"error": {"status": 400, "message": message}}, status_code=400)


def too_many_requests(wait: int) -> JSONResponse:
    body = {"error": {"status": 429, "message": f"rate limit exceeded; retry in {wait} s"}}
    return JSONResponse(body, status_code=429, headers={"Retry-After": str(wait)})


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
# The answer's headers the middleware reads.
_READ = frozenset({b"content-encoding", b"content-type", b"cache-control", b"vary"})
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


def _asked(raw: list[tuple[bytes, bytes]]) -> tuple[str | None, bool]:
    """The request's first ``Accept-Encoding`` (None without one) and whether it carries an
    ``If-None-Match``: read in one pass over the ASGI headers, which every request makes."""
    accepted: str | None = None
    revalidating = False
    for name, value in raw:
        if name == b"accept-encoding" and accepted is None:
            accepted = value.decode("latin-1")
        elif name == b"if-none-match":
            revalidating = True
    return accepted, revalidating


@dataclass(frozen=True)
class _Answer:
    """What the middleware reads of an answer's headers (the first of each, as ``Headers``
    gives), found in one pass rather than one ``Headers`` look-up each."""

    encoded: bool
    kind: str
    cache_control: str
    vary: int | None  # the index of the first Vary header, if any

    @classmethod
    def of(cls, raw: list[tuple[bytes, bytes]]) -> _Answer:
        found: dict[bytes, tuple[int, bytes]] = {}
        for index, (name, value) in enumerate(raw):
            if name in _READ and name not in found:
                found[name] = (index, value)
        kind = found.get(b"content-type", (0, b""))[1].decode("latin-1")
        cache_control = found.get(b"cache-control", (0, b""))[1].decode("latin-1")
        vary = found[b"vary"][0] if b"vary" in found else None
        return cls(b"content-encoding" in found, kind, cache_control, vary)

    def eligible(self, path: str) -> bool:
        """Whether it may be compressed: public or static, compressible, not yet encoded."""
        if self.encoded or not self.kind.startswith(COMPRESSIBLE):
            return False
        return "public" in self.cache_control.lower() or path.startswith("/static/")

    def varied(self, raw: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        """A copy of ``raw`` whose Vary names Accept-Encoding too (after what it named), as
        ``MutableHeaders.add_vary_header`` would write it."""
        if self.vary is None:
            return [*raw, (b"vary", b"Accept-Encoding")]
        joined = (b"vary", raw[self.vary][1] + b", Accept-Encoding")
        rest = [header for header in raw[self.vary + 1 :] if header[0] != b"vary"]
        return [*raw[: self.vary], joined, *rest]


RawHeaders = list[tuple[bytes, bytes]]


class Compressor:
    """Compresses one deployment's answers, keeping the compressed bodies by ETag.

    Not a middleware of its own: the security middleware (:class:`SecurityMiddleware`) hands
    each request's ``send`` to :meth:`sending`, so an answer passes one wrapper for both, and its
    headers are written in the order two middlewares, this one innermost, would write them.
    """

    def __init__(self) -> None:
        self.kept: LRUCache[tuple[str, str], bytes] = LRUCache(KEPT_BYTES, getsizeof=len)

    def sending(self, scope: Scope, send: Send, after: RawHeaders) -> tuple[Scope, Send]:
        """The scope the app should see (If-None-Match tags without their encoding) and the
        ``send`` it should answer through: compressed where it may be, ``after`` appended to
        the headers of every answer."""
        accepted, revalidating = _asked(scope["headers"])
        encoding = None if accepted is None else chosen_encoding(accepted)
        if revalidating:
            scope = {**scope, "headers": plain_tags(scope["headers"])}
        path: str = scope["path"]
        started: Message | None = None
        chunks: list[bytes] = []

        async def compress(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                raw = message.get("headers", [])
                answer = _Answer.of(raw)
                if message["status"] != 200 or not answer.eligible(path):
                    await send({**message, "headers": [*raw, *after]})
                elif encoding is None:  # sent as it is, but a cache must know it could vary
                    await send({**message, "headers": [*answer.varied(raw), *after]})
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
            await send({**start, "headers": [*start["headers"], *after]})
            await send({"type": "http.response.body", "body": body, "more_body": False})

        return scope, compress

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
