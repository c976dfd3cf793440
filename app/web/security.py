"""Security headers on every response, and the JSON API's rate limit (HTTP middleware).

The Content-Security-Policy allows only Paperboy's own scripts, styles and images: there is
no inline script or style anywhere, and no CDN. The interactive API docs page (Swagger UI)
loads its assets from a CDN, so it alone gets a policy that allows that CDN.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import Request, Response
from fastapi.responses import JSONResponse

from app.web.limits import RateLimiter

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' https://cdn.jsdelivr.net; img-src 'self' data: https://fastapi.tiangolo.com; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
    "Cross-Origin-Opener-Policy": "same-origin",
}
DOCS_PATH = "/api/docs"
RATE_LIMITED_PREFIX = "/api/"

Next = Callable[[Request], Awaitable[Response]]


def security_headers(path: str) -> dict[str, str]:
    """The headers every response carries (pure)."""
    return {**HEADERS, "Content-Security-Policy": DOCS_CSP if path == DOCS_PATH else CSP}


def client_key(request: Request) -> str:
    # Behind a proxy, run uvicorn with --proxy-headers so this is the real client.
    return request.client.host if request.client else "unknown"


def make_middleware(limiter: RateLimiter) -> Callable[[Request, Next], Awaitable[Response]]:
    async def middleware(request: Request, call_next: Next) -> Response:
        path = request.url.path
        limited = path.startswith(RATE_LIMITED_PREFIX) and request.method != "OPTIONS"
        wait = limiter.retry_after(client_key(request)) if limited else None
        if wait is not None:
            response: Response = too_many_requests(wait)
        else:
            response = await call_next(request)
        response.headers.update(security_headers(path))
        return response

    return middleware


def too_many_requests(wait: int) -> JSONResponse:
    body = {"error": {"status": 429, "message": f"rate limit exceeded; retry in {wait} s"}}
    return JSONResponse(body, status_code=429, headers={"Retry-After": str(wait)})
