"""A reader's personal access tokens: what an assistant shows to act as that reader.

A token is ``pbt_`` and 43 characters of base64url (32 random bytes): the prefix makes one
recognisable to a reader, and to a secret scanner, wherever it is pasted. Only its SHA-256
is stored, with its first :data:`HINT_LENGTH` characters for the reader to tell tokens apart;
the token itself is shown once, when it is made. A reader holds at most :data:`MAX_TOKENS`
live tokens, each named (up to :data:`MAX_NAME` characters, one visible), scoped to reading
or to reading and writing, and living :data:`LIFETIMES` days (or, when the reader says so,
until revoked). A token that is malformed, unknown, revoked or expired is refused in words
that say which (:class:`TokenRefusedError`), and never echoed back.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import AccessToken, Subscriber, TokenScope
from app.core.names import is_visible, kept_form
from app.core.refusals import BadInput, NotFound, Refused

PREFIX = "pbt_"
SECRET_BYTES = 32
TOKEN_SHAPE = re.compile(r"pbt_[A-Za-z0-9_-]{43}")
HINT_LENGTH = 8
MAX_TOKENS = 20
MAX_NAME = 60
# Days a token may live; 0 is "until revoked".
LIFETIMES = (30, 90, 365, 0)
# How stale a token's last use may be before a use writes it again.
LAST_USE_GRAIN = timedelta(minutes=1)


class TokenRefusedError(Refused):
    """The token shown cannot act: the message says why (never the token)."""


class TokenFormRefusedError(BadInput, ValueError):
    """A new token's name, scope or lifetime cannot be kept as sent."""


def digest_of(token: str) -> str:
    """What is stored of a token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def new_token() -> str:
    return PREFIX + secrets.token_urlsafe(SECRET_BYTES)


def token_name(name: str) -> str:
    """The name as kept, or :class:`TokenFormRefusedError` saying what is wrong."""
    if any(unicodedata.category(c) == "Cc" for c in name):
        raise TokenFormRefusedError("a token's name holds no control characters")
    kept = kept_form(name)
    if not kept or not is_visible(kept):
        raise TokenFormRefusedError("a token needs a name with a character that shows")
    if len(kept) > MAX_NAME:
        raise TokenFormRefusedError(
            f"a token's name has at most {MAX_NAME} characters; this one has {len(kept)}"
        )
    return kept


def token_scope(asked: str) -> TokenScope:
    try:
        return TokenScope(asked)
    except ValueError:
        raise TokenFormRefusedError("a token's scope is `read` or `write`") from None


def token_lifetime(asked: str) -> int:
    """Days the new token lives (0: until revoked), from the form's choice."""
    if not asked.isdigit() or int(asked) not in LIFETIMES:
        choices = ", ".join(str(days) for days in LIFETIMES)
        raise TokenFormRefusedError(f"a token lives {choices} days (0: until revoked)")
    return int(asked)


def create_token(
    session: Session, subscriber: Subscriber, name: str, scope: TokenScope, days: int, now: datetime
) -> str:
    """Make a token for the reader and return it: the only time it is ever seen."""
    kept = token_name(name)
    if len(live_tokens(session, subscriber.id, now)) >= MAX_TOKENS:
        raise TokenFormRefusedError(
            f"you hold {MAX_TOKENS} tokens, the most a reader may: revoke one first"
        )
    token = new_token()
    session.add(
        AccessToken(
            subscriber_id=subscriber.id,
            name=kept,
            scope=scope,
            digest=digest_of(token),
            hint=token[:HINT_LENGTH],
            created_at=now,
            expires_at=now + timedelta(days=days) if days else None,
        )
    )
    session.flush()
    return token


def live_tokens(session: Session, subscriber_id: int, now: datetime) -> list[AccessToken]:
    """The reader's tokens that still act, newest first."""
    rows = session.scalars(
        select(AccessToken)
        .where(AccessToken.subscriber_id == subscriber_id, AccessToken.revoked_at.is_(None))
        .order_by(AccessToken.created_at.desc(), AccessToken.id.desc())
    )
    return [row for row in rows if row.expires_at is None or row.expires_at > now]


def revoke_token(session: Session, subscriber: Subscriber, token_id: int, now: datetime) -> None:
    """Stop the reader's token from acting, at once (revoking it again changes nothing)."""
    row = session.get(AccessToken, token_id)
    if row is None or row.subscriber_id != subscriber.id:
        raise NotFound(f"you hold no token {token_id}")
    if row.revoked_at is None:
        row.revoked_at = now


def token_holder(session: Session, token: str, now: datetime) -> tuple[Subscriber, AccessToken]:
    """The reader a token acts for, and the token's row; :class:`TokenRefusedError` else."""
    if not TOKEN_SHAPE.fullmatch(token):
        raise TokenRefusedError(
            "the access token is malformed: it is `pbt_` and 43 letters, digits, - or _"
        )
    row = session.scalar(select(AccessToken).where(AccessToken.digest == digest_of(token)))
    if row is None:
        raise TokenRefusedError("the access token is not known here")
    if row.revoked_at is not None:
        raise TokenRefusedError(f"the access token {row.name!r} was revoked")
    if row.expires_at is not None and row.expires_at <= now:
        raise TokenRefusedError(f"the access token {row.name!r} expired; make a new one")
    holder = session.get(Subscriber, row.subscriber_id)
    assert holder is not None  # the foreign key's cascade takes the tokens with the reader
    if row.last_used_at is None or now - row.last_used_at >= LAST_USE_GRAIN:
        row.last_used_at = now
    return holder, row


def every_token(session: Session, subscriber_id: int) -> list[AccessToken]:
    """All the reader's tokens, revoked and expired ones too, oldest first."""
    return list(
        session.scalars(
            select(AccessToken)
            .where(AccessToken.subscriber_id == subscriber_id)
            .order_by(AccessToken.created_at, AccessToken.id)
        )
    )
