"""In production only requests for the public address are answered (ASGI middleware).

Every absolute URL Paperboy writes comes from ``PAPERBOY_PUBLIC_BASE_URL``, never from the
request. Refusing any other ``Host`` as well keeps a forged one out of whatever a route might
still build from the request, and out of caches that key on it. A proxy in front must pass
the reader's ``Host`` on (nginx: ``proxy_set_header Host $host``). The health checks and the
metrics answer for any host: a container's check asks 127.0.0.1, a Prometheus scrape asks the
container's address, and none of the three says anything that comes from the request. In
development every host is answered: tests and the demo serve 127.0.0.1 on a random port.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from app.core.config import Settings
from app.web.middleware.security import security_headers, wants_strict_transport

# Asked by machines at whatever address they reach the process by.
ANY_HOST = frozenset({"/healthz", "/readyz", "/metrics"})
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Address:
    host: str
    port: int | None


def address(netloc: str, scheme: str) -> Address | None:
    """Where a URL's authority points, the scheme's port filled in; None if it is no
    plain ``host[:port]`` (pure)."""
    parts = urlsplit(f"//{netloc}")
    try:
        port = parts.port
    except ValueError:
        return None
    if (
        not parts.hostname
        or parts.username is not None
        or parts.path
        or parts.query
        or parts.fragment
    ):
        return None
    return Address(parts.hostname, port if port is not None else DEFAULT_PORTS.get(scheme))


def host_allowed(hosts: Sequence[str], public_base_url: str) -> bool:
    """Whether every ``Host`` header names the public base URL's host and port (pure)."""
    public = urlsplit(public_base_url)
    own = address(public.netloc, public.scheme)
    return bool(hosts) and own is not None and all(address(h, public.scheme) == own for h in hosts)


class HostMiddleware:
    """Refuses (400) a request whose ``Host`` is not the public base URL's, bar ``ANY_HOST``."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.public_base_url = settings.public_base_url
        host = urlsplit(settings.public_base_url).netloc
        # This answer leaves before the security middleware: it carries their headers itself.
        headers = security_headers(strict_transport=wants_strict_transport(settings))
        self.refusal = PlainTextResponse(
            f"This server answers for {host} only.\n",
            status_code=400,
            headers={**headers, "Cache-Control": "no-store"},
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in ANY_HOST or self._own(scope):
            await self.app(scope, receive, send)
            return
        await self.refusal(scope, receive, send)

    def _own(self, scope: Scope) -> bool:
        hosts = [value.decode("latin-1") for name, value in scope["headers"] if name == b"host"]
        return host_allowed(hosts, self.public_base_url)
