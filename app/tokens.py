"""Signed tokens for links in email: confirmation, preferences, unsubscribe, feedback, sign-in.

A token is ``payload.signature``: the payload (purpose, subject, issue time, a random id and
optional extra fields) as base64url JSON, signed with HMAC-SHA256 under the secret key. Checking
one is pure (the time is passed in); spending a single-use token records its id, so a second use
is refused.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache

from sqlalchemy.orm import Session

from app.models import UsedToken

# One encoder: json.dumps with these separators would build a new one for every token.
_JSON = json.JSONEncoder(separators=(",", ":"))


class TokenError(ValueError):
    """A token that is refused; ``reason`` is one of tampered, expired, used, wrong-purpose."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"this link is {reason}")
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Claims:
    purpose: str
    subject: str
    issued_at: int
    token_id: str
    extra: dict[str, str] = field(default_factory=dict)


def issue(secret: str, purpose: str, subject: str, now: datetime, **extra: str) -> str:
    payload = {"p": purpose, "s": subject, "i": int(now.timestamp()), "j": secrets.token_hex(8)}
    payload.update({f"x_{key}": value for key, value in extra.items()})
    body = _encode(_JSON.encode(payload).encode())
    return f"{body}.{_signature(secret, body)}"


def verify(
    secret: str, token: str, purpose: str, now: datetime, max_age: timedelta | None
) -> Claims:
    """The token's claims, or :class:`TokenError`; ``max_age`` None means it never expires."""
    body, _, signature = token.partition(".")
    if not hmac.compare_digest(signature, _signature(secret, body)):
        raise TokenError("tampered")
    claims = _decode(body)
    if claims.purpose != purpose:
        raise TokenError("wrong-purpose")
    if max_age is not None and now.timestamp() - claims.issued_at > max_age.total_seconds():
        raise TokenError("expired")
    return claims


def spend(session: Session, claims: Claims, now: datetime) -> None:
    """Mark a single-use token used; refuses one that was used before."""
    if session.get(UsedToken, claims.token_id) is not None:
        raise TokenError("used")
    session.add(UsedToken(token_id=claims.token_id, purpose=claims.purpose, used_at=now))
    session.flush()


def _decode(body: str) -> Claims:
    try:
        raw = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        extra = {key[2:]: str(value) for key, value in raw.items() if key.startswith("x_")}
        return Claims(str(raw["p"]), str(raw["s"]), int(raw["i"]), str(raw["j"]), extra)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        # Signed by us yet unreadable: only possible with a leaked key or a format change.
        raise TokenError("tampered") from error


def _encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _signature(secret: str, body: str) -> str:
    signer = _keyed(secret).copy()
    signer.update(body.encode())
    return _encode(signer.digest())


# A digest run signs a dozen links per mail under one key: key the HMAC once and copy it.
@cache
def _keyed(secret: str) -> hmac.HMAC:
    return hmac.new(secret.encode(), digestmod=hashlib.sha256)
