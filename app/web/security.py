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
"""

from __future__ import annotations

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from app.core.config import Settings
from app.core.logs import carries_token
from app.web.compression import Compressor
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
# check of where a form comes from (app.web.origin) refuses.
TOKENED_REFERRER_POLICY = "strict-origin"
RATE_LIMITED_PREFIX = "/api/"


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
    """Adds the security headers to every response, rate-limits ``/api/`` per client, and
    compresses what may be compressed (``app.web.compression``).

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
        if not path.startswith(RATE_LIMITED_PREFIX) or scope["method"] == "OPTIONS":
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
