"""Signed tokens for links in email: confirmation, preferences, unsubscribe, feedback, sign-in.

A token is ``payload.signature``: the payload (purpose, subject, issue time, a random id and
optional extra fields) as base64url JSON, signed with HMAC-SHA256 under the secret key. Checking
one is pure (the time is passed in); spending a single-use token records its id, so a second use
is refused, unless it comes within :data:`REPEAT_GRACE` of the first (a double click): that one
is answered as the first was, and does nothing again. A token spent with the browser's CSRF
nonce (a sign-in link, which opens a session) counts a repeat only from that browser.

A token is checked as untrusted text: anything that is not a well-formed ASCII token (a
non-ASCII character, a body that is not base64url JSON) is refused as ``malformed`` before any
comparison, and a token issued in the future (beyond a small clock skew between processes) is
refused, since only a leaked key or a broken clock could make one.
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

from app.core.models import UsedToken
from app.core.refusals import BadInput

# One encoder: json.dumps with these separators would build a new one for every token.
_JSON = json.JSONEncoder(separators=(",", ":"))


# Processes of one deployment may disagree on the time by a little; more is not a clock drift.
MAX_CLOCK_SKEW = timedelta(seconds=60)
MAX_TOKEN_LENGTH = 2048
# Seconds since 1970 up to the year 10000: anything later is no time a token was issued.
MAX_ISSUED_AT = 253_402_300_800
# A double click, or a browser sending a form again after a slow answer, spends a single-use
# link twice within moments; refused, the reader who just confirmed or signed in would read
# "this link is used". A repeat this soon is the same person's (the link is in their mailbox),
# so it is answered as the first was; later, a used link found in a mailbox or a browser's
# history is refused.
REPEAT_GRACE = timedelta(minutes=2)


class TokenError(BadInput, ValueError):
    """A token that is refused; ``reason`` says why in words (tampered, expired, used, ...)."""

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
    if not token.isascii() or len(token) > MAX_TOKEN_LENGTH:
        raise TokenError("malformed")
    body, _, signature = token.partition(".")
    if not hmac.compare_digest(signature.encode(), _signature(secret, body).encode()):
        raise TokenError("tampered")
    claims = _decode(body)
    if claims.purpose != purpose:
        raise TokenError("wrong-purpose")
    age = now.timestamp() - claims.issued_at
    if age < -MAX_CLOCK_SKEW.total_seconds():
        raise TokenError("issued in the future")
    if max_age is not None and age > max_age.total_seconds():
        raise TokenError("expired")
    return claims


def same_text(given: str, expected: str) -> bool:
    """A constant-time comparison of untrusted text with an expected ASCII value."""
    return given.isascii() and hmac.compare_digest(given.encode(), expected.encode())


def spend(session: Session, claims: Claims, now: datetime, nonce: str | None = None) -> bool:
    """Mark a single-use token used: True the first time; False for a repeat within
    :data:`REPEAT_GRACE` (answer it as the first, do nothing again); refuses a later one.

    Spent with ``nonce`` (the browser's CSRF nonce), the token is that browser's: a repeat
    with another nonce, or none, is refused, since its answer (a session) is worth taking.
    """
    held_by = None if nonce is None else nonce_hash(nonce)
    used = session.get(UsedToken, claims.token_id)
    if used is None:
        spent = UsedToken(
            token_id=claims.token_id, purpose=claims.purpose, used_at=now, nonce_hash=held_by
        )
        session.add(spent)
        session.flush()
        return True
    _refuse_late(used, now)
    if held_by is not None and not same_text(held_by, used.nonce_hash or ""):
        raise TokenError("used")
    return False


def spent_moments_ago(session: Session, claims: Claims, now: datetime) -> bool:
    """Whether the token was spent within :data:`REPEAT_GRACE`; refuses one spent before.

    A page view checks a link with this and spends nothing.
    """
    used = session.get(UsedToken, claims.token_id)
    if used is None:
        return False
    _refuse_late(used, now)
    return True


def nonce_hash(nonce: str) -> str:
    """What is kept of a browser's CSRF nonce: its SHA-256, never the cookie's value."""
    return hashlib.sha256(nonce.encode()).hexdigest()


def _refuse_late(used: UsedToken, now: datetime) -> None:
    if now - used.used_at > REPEAT_GRACE:
        raise TokenError("used")


def _decode(body: str) -> Claims:
    try:
        raw = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        extra = {key[2:]: str(value) for key, value in raw.items() if key.startswith("x_")}
        issued_at = int(raw["i"])
        if not 0 <= issued_at < MAX_ISSUED_AT:
            raise ValueError("issue time out of range")
        return Claims(
            purpose=str(raw["p"]),
            subject=str(raw["s"]),
            issued_at=issued_at,
            token_id=str(raw["j"]),
            extra=extra,
        )
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError) as error:
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
