"""A real OpenID Connect provider on a free local port: oidc-provider-mock (Authlib's
authorization server in a Flask app, RS256 ID tokens, a JWKS, discovery), served by
werkzeug in a thread, for Paperboy's "Sign in with ORCID" to talk to over HTTP.

As published, that provider checks no PKCE verifier and lets a code live forever. ORCID does
both, so a WSGI layer in front of it does them as ORCID does: it keeps the S256 challenge of
each code it issues, and answers a token request whose verifier does not match, or whose code
a test has expired, with ``invalid_grant`` (``checks_pkce`` off leaves the provider as
published). It can also answer for another issuer (the Host it reads), in its discovery
document or in its ID tokens only: a misconfigured or impostor provider.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import werkzeug.serving
from oidc_provider_mock import app as provider_app

from tests.servers import free_port

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


@dataclass
class Provider:
    """The provider's rules beside the published ones, and what it saw."""

    base_url: str
    checks_pkce: bool = True
    # "discovery" and/or "token": where it answers for :attr:`other_issuer` instead.
    other_issuer_in: set[str] = field(default_factory=set)
    challenges: dict[str, str] = field(default_factory=dict)  # code → S256 challenge
    expired: set[str] = field(default_factory=set)
    verified_verifiers: list[str] = field(default_factory=list)

    @property
    def other_issuer(self) -> str:
        """Itself by another name (loopback still, which OAuth takes over plain HTTP)."""
        return self.base_url.replace("127.0.0.1", "localhost")

    def authorize(self, authorization_url: str, sub: str) -> str:
        """Sign in at the provider as ``sub`` and consent; the path and query (on Paperboy)
        the provider sends the browser back to."""
        answer = httpx.post(authorization_url, data={"sub": sub})
        assert answer.status_code == 302, answer.text
        return _path_of(answer.headers["location"])

    def deny(self, authorization_url: str) -> str:
        answer = httpx.post(authorization_url, data={"action": "deny"})
        assert answer.status_code == 302, answer.text
        return _path_of(answer.headers["location"])

    def exchange_first(self, code: str, client_id: str, redirect_uri: str) -> None:
        """Spend ``code`` at the token endpoint, as someone else who got it would."""
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
        answer = httpx.post(f"{self.base_url}/oauth2/token", data=form, auth=(client_id, "s"))
        assert answer.status_code == 200, answer.text

    def wsgi(self, inner: WsgiApp) -> WsgiApp:
        def layer(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            path = environ["PATH_INFO"]
            if path == "/.well-known/openid-configuration" and "discovery" in self.other_issuer_in:
                environ["HTTP_HOST"] = urlsplit(self.other_issuer).netloc
            if path == "/oauth2/token":
                refusal = self._token_refusal(environ)
                if refusal is not None:
                    return _invalid_grant(start_response, refusal)
                if "token" in self.other_issuer_in:
                    environ["HTTP_HOST"] = urlsplit(self.other_issuer).netloc
            if path == "/oauth2/authorize":
                return self._remembering_challenge(inner, environ, start_response)
            return inner(environ, start_response)

        return layer

    def _remembering_challenge(
        self, inner: WsgiApp, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        query = parse_qs(environ.get("QUERY_STRING", ""))
        challenge = query.get("code_challenge", [""])[0]
        method = query.get("code_challenge_method", [""])[0]

        def seen(status: str, headers: list[tuple[str, str]], *rest: Any) -> Any:
            location = dict(headers).get("Location", "")
            code = parse_qs(urlsplit(location).query).get("code", [""])[0]
            if code:
                self.challenges[code] = challenge if method == "S256" else ""
            return start_response(status, headers, *rest)

        return inner(environ, seen)

    def _token_refusal(self, environ: dict[str, Any]) -> str | None:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)
        form = parse_qs(body.decode())
        code = form.get("code", [""])[0]
        if code in self.expired:
            return "authorization code expired"
        if not self.checks_pkce or not code:
            return None
        verifier = form.get("code_verifier", [""])[0]
        digest = hashlib.sha256(verifier.encode()).digest()
        if base64.urlsafe_b64encode(digest).decode().rstrip("=") != self.challenges.get(code):
            return "PKCE verification failed"
        self.verified_verifiers.append(verifier)
        return None


@contextmanager
def oidc_provider(port: int | None = None) -> Iterator[Provider]:
    """The provider served on 127.0.0.1 (``port``, else a free one) until the block ends."""
    port = port or free_port()
    provider = Provider(f"http://127.0.0.1:{port}")
    server = werkzeug.serving.make_server(
        "127.0.0.1", port, provider.wsgi(provider_app()), threaded=True
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _path_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def _invalid_grant(start_response: Callable[..., Any], description: str) -> list[bytes]:
    body = json.dumps({"error": "invalid_grant", "error_description": description}).encode()
    start_response("400 BAD REQUEST", [("Content-Type", "application/json")])
    return [body]
