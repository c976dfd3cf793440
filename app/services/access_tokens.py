"""A reader's personal access tokens: make one, list them, revoke one, and find who a token
shown by an assistant acts for (the rules are ``accounts.access_tokens``'s).

Making and revoking are reader actions (:func:`app.services.readers.as_reader`); finding a
token's holder only reads, and refuses a token that is malformed, unknown, revoked, expired,
or read-only where the tool would write (:class:`TokenRefusedError`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import partial

from sqlalchemy.orm import Session

from accounts import access_tokens
from accounts.access_tokens import LIFETIMES, TokenRefusedError
from accounts.reader import find
from app.core.db import session_scope
from app.core.models import AccessToken, Subscriber, TokenScope
from app.services.readers import as_reader
from app.services.reports import Deployment

__all__ = ["LIFETIMES", "TokenRefusedError"]


@dataclass(frozen=True)
class TokenView:
    """A live token as the reader's page lists it (never the token itself)."""

    id: int
    name: str
    scope: TokenScope
    hint: str
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None


@dataclass(frozen=True)
class TokenHolder:
    """Who a token acts for, and whether it may change what they hold."""

    email_key: str
    token_id: int
    can_write: bool


def make_token(site: Deployment, email_key: str, name: str, scope: str, lifetime: str) -> str:
    """A new token for the reader, from the form's strings: returned once, stored hashed."""
    scoped = access_tokens.token_scope(scope)
    days = access_tokens.token_lifetime(lifetime)
    access_tokens.token_name(name)  # refused before the reader's row is made, if it must be

    def step(session: Session, reader: Subscriber, now: datetime) -> str:
        return access_tokens.create_token(session, reader, name, scoped, days, now)

    return as_reader(site, email_key, step)


def revoke_token(site: Deployment, email_key: str, token_id: int) -> None:
    as_reader(site, email_key, partial(_revoke, token_id=token_id))


def _revoke(session: Session, reader: Subscriber, now: datetime, token_id: int) -> None:
    access_tokens.revoke_token(session, reader, token_id, now)


def reader_tokens(session: Session, email_key: str, now: datetime) -> list[TokenView]:
    """The reader's live tokens, newest first (none for a reader without a row)."""
    reader = find(session, email_key)
    if reader is None:
        return []
    return [_view(row) for row in access_tokens.live_tokens(session, reader.id, now)]


def _view(row: AccessToken) -> TokenView:
    return TokenView(
        id=row.id,
        name=row.name,
        scope=row.scope,
        hint=row.hint,
        created_at=row.created_at,
        expires_at=row.expires_at,
        last_used_at=row.last_used_at,
    )


def token_holder(site: Deployment, token: str, *, write: bool) -> TokenHolder:
    """The reader ``token`` acts for; refused in words when it may not (``write``: the tool
    changes what the reader holds, which a read-only token may not)."""
    with session_scope(site.sessions) as session:
        reader, row = access_tokens.token_holder(session, token, site.clock())
        can_write = row.scope is TokenScope.WRITE
        if write and not can_write:
            raise TokenRefusedError(
                f"the access token {row.name!r} may only read: make one that may write"
            )
        return TokenHolder(email_key=reader.email_key, token_id=row.id, can_write=can_write)
