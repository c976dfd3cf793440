"""Voters who signed in with a real sign-in link at a chosen time, and their votes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from urllib.parse import parse_qs, urlsplit

from accounts import links, signin, votes
from app.core.models.subscriptions import mailbox_key
from tests.conftest import Database


def sign_in(database: Database, addresses: Sequence[str], at: datetime) -> None:
    """Each address asks for a sign-in link at ``at`` and opens it (its mailbox proven then)."""
    settings = database.settings
    with database.sessions.begin() as session:
        for address in addresses:
            key = signin.key_for(session, mailbox_key(address), at)
            url = links.signin_url(settings, address, key, at)
            token = parse_qs(urlsplit(url).query)["token"][0]
            signin.spend_link(session, settings, token, at, nonce=f"browser of {address}")


def cast(database: Database, addresses: Sequence[str], arxiv_id: str, at: datetime) -> None:
    with database.sessions.begin() as session:
        for address in addresses:
            votes.cast(session, mailbox_key(address), arxiv_id, at)


def retract(database: Database, addresses: Sequence[str], arxiv_id: str) -> None:
    with database.sessions.begin() as session:
        for address in addresses:
            votes.retract(session, mailbox_key(address), arxiv_id)
