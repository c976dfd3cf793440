"""Sign in with ORCID, the OpenID Connect half: discovery, the authorization request, the
code exchange and the ID token's checks. Authlib speaks OAuth 2 (the request's state, nonce
and PKCE S256 challenge; the code exchange with the verifier), joserfc (Authlib's JOSE)
checks the ID token.

Nothing here is stored. A sign-in's secrets (:class:`Flow`) are made as it starts and kept by
the browser in a signed cookie until ORCID sends it back (``app.services.orcid_signin``). The
provider is found from the configured issuer's ``/.well-known/openid-configuration``, whose
``issuer`` must be the configured one exactly (else the provider is taken as down), as must
the ID token's ``iss`` (else the sign-in is refused). An ID token is taken only signed by a
key of the provider's JWKS (RS256), for this client (``aud``), unexpired, and carrying the
flow's nonce.
A provider that does not answer is :class:`ProviderDown`; one that refuses the code (expired,
used, or not this flow's) is :class:`ProviderRefused`.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import requests
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from app.core.config import Settings
from app.core.refusals import BadInput, Unavailable

DISCOVERY_PATH = "/.well-known/openid-configuration"
SCOPE = "openid"
SIGNING_ALGORITHMS = ("RS256",)
# The clocks of ORCID and of this site may disagree by a little.
CLOCK_LEEWAY_SECONDS = 60
# Discovery and keys are a few kB; a larger answer is not an OpenID provider's.
MAX_DOCUMENT_BYTES = 1_000_000
CALLBACK_PATH = "/signin/orcid/callback"


class ProviderDown(Unavailable):
    """ORCID does not answer (or not as an OpenID provider)."""


class ProviderRefused(BadInput):
    """ORCID's answer is refused, or ORCID refused the sign-in: the message says which."""


@dataclass(frozen=True, slots=True)
class Flow:
    """One sign-in's secrets: ``state`` ties ORCID's answer to this browser, ``nonce`` the ID
    token to this sign-in, ``verifier`` (PKCE) the code to this client."""

    state: str
    nonce: str
    verifier: str


@dataclass(frozen=True, slots=True)
class Provider:
    """What discovery found: the endpoints, the key set's address, and how to send the
    client's secret."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    secret_sent_by: str


def new_flow() -> Flow:
    # PKCE wants 43 to 128 characters of verifier: 48 random bytes are 64.
    return Flow(secrets.token_urlsafe(32), secrets.token_urlsafe(32), secrets.token_urlsafe(48))


def issuer(settings: Settings) -> str:
    return settings.orcid_issuer.rstrip("/")


def redirect_uri(settings: Settings) -> str:
    return f"{settings.public_base_url.rstrip('/')}{CALLBACK_PATH}"


def discover(settings: Settings) -> Provider:
    """The provider the configured issuer describes; refused if it names another issuer."""
    found = _json(settings, f"{issuer(settings)}{DISCOVERY_PATH}")
    if found.get("issuer") != issuer(settings):
        raise ProviderDown(
            f"The sign-in provider answers for the issuer {found.get('issuer')!r}, not "
            f"{issuer(settings)!r}, so it is not used. Nothing was changed."
        )
    methods = found.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    try:
        return Provider(
            issuer=issuer(settings),
            authorization_endpoint=str(found["authorization_endpoint"]),
            token_endpoint=str(found["token_endpoint"]),
            jwks_uri=str(found["jwks_uri"]),
            secret_sent_by=(
                "client_secret_basic" if "client_secret_basic" in methods else "client_secret_post"
            ),
        )
    except KeyError as missing:
        raise ProviderDown(f"the sign-in provider's description lacks {missing}") from None


def authorization_url(settings: Settings, provider: Provider, flow: Flow) -> str:
    """Where the browser goes to sign in at ORCID: with the flow's state, nonce and PKCE
    challenge (S256)."""
    with _client(settings, provider) as client:
        url, _ = client.create_authorization_url(
            provider.authorization_endpoint,
            state=flow.state,
            code_verifier=flow.verifier,
            nonce=flow.nonce,
        )
    return str(url)


def signed_in_subject(
    settings: Settings, provider: Provider, flow: Flow, code: str, now: datetime
) -> str:
    """The ``sub`` of the ID token ORCID gives for ``code``, once every check holds."""
    id_token = _exchange(settings, provider, flow, code)
    keys = KeySet.import_key_set(_json(settings, provider.jwks_uri))  # type: ignore[arg-type]
    try:
        token = jwt.decode(id_token, keys, algorithms=list(SIGNING_ALGORITHMS))
        _claims_registry(settings, flow, now).validate(token.claims)
    except (JoseError, ValueError) as refused:
        raise ProviderRefused(
            f"ORCID's answer did not hold ({refused}), so nobody was signed in. Nothing was "
            "changed: start again."
        ) from None
    return str(token.claims["sub"])


def _claims_registry(settings: Settings, flow: Flow, now: datetime) -> jwt.JWTClaimsRegistry:
    return jwt.JWTClaimsRegistry(
        now=int(now.timestamp()),
        leeway=CLOCK_LEEWAY_SECONDS,
        iss={"essential": True, "value": issuer(settings)},
        aud={"essential": True, "value": settings.orcid_client_id},
        exp={"essential": True},
        sub={"essential": True},
        nonce={"essential": True, "value": flow.nonce},
    )


def _exchange(settings: Settings, provider: Provider, flow: Flow, code: str) -> str:
    """The ID token for the code, sent with the flow's PKCE verifier."""
    with _client(settings, provider) as client:
        try:
            answer = client.fetch_token(
                provider.token_endpoint,
                code=code,
                code_verifier=flow.verifier,
                timeout=settings.http_timeout_seconds,
            )
        except OAuthError as refused:
            raise ProviderRefused(
                f"ORCID refused the sign-in ({refused.error}: the code expired or was used "
                "already). Nothing was changed: start again."
            ) from None
        except requests.RequestException as away:
            raise _down(away) from None
    id_token = answer.get("id_token")
    if not isinstance(id_token, str):
        raise ProviderRefused("ORCID gave no ID token. Nothing was changed: start again.")
    return id_token


def _client(settings: Settings, provider: Provider) -> OAuth2Session:
    return OAuth2Session(
        client_id=settings.orcid_client_id,
        client_secret=settings.orcid_client_secret,
        token_endpoint_auth_method=provider.secret_sent_by,
        scope=SCOPE,
        redirect_uri=redirect_uri(settings),
        code_challenge_method="S256",
    )


def _json(settings: Settings, url: str) -> dict[str, Any]:
    try:
        with requests.get(url, timeout=settings.http_timeout_seconds, stream=True) as answer:
            answer.raise_for_status()
            body = answer.raw.read(MAX_DOCUMENT_BYTES + 1, decode_content=True)
    except requests.RequestException as away:
        raise _down(away) from None
    try:
        found = json.loads(body) if len(body) <= MAX_DOCUMENT_BYTES else None
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise ProviderDown("the sign-in provider answered with something other than JSON")
    return found


def _down(away: requests.RequestException) -> ProviderDown:
    return ProviderDown(
        f"ORCID is not answering ({type(away).__name__}), so nobody can sign in with it just "
        "now. Nothing was changed: try again in a few minutes, or sign in with your email."
    )
