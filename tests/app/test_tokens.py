import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.core import tokens
from app.core.models import UsedToken

SECRET = "a-stable-secret-key-for-tests-0123456789"
ISSUED = datetime(2026, 6, 2, 9, 0, tzinfo=UTC)
# A thumbs-up token as an earlier release signed it (a fresh HMAC and json.dumps per token):
# links in mail already sent must keep working whatever the signer's implementation becomes.
SENT_BEFORE = (
    "eyJwIjoiZmVlZGJhY2siLCJzIjoiNDIiLCJpIjoxNzgwMzkwODAwLCJqIjoiMTNlODljZDBhZTEzMWMxMSIsInhf"
    "cGFwZXIiOiIyNjA2LjAxMjM0In0.bJawdIXuRKeOf9pVLQikFIsyea1LXV5JmI-CHsu-UDE"
)


def test_a_token_from_mail_already_sent_still_verifies() -> None:
    claims = tokens.verify(SECRET, SENT_BEFORE, "feedback", ISSUED, timedelta(days=90))
    assert (claims.subject, claims.extra, claims.issued_at) == (
        "42",
        {"paper": "2606.01234"},
        int(ISSUED.timestamp()),
    )


def test_a_token_issued_now_verifies_and_a_changed_one_is_refused() -> None:
    token = tokens.issue(SECRET, "feedback", "42", ISSUED, paper="2606.01234")
    assert tokens.verify(SECRET, token, "feedback", ISSUED, None).extra == {"paper": "2606.01234"}
    with pytest.raises(tokens.TokenError, match="tampered"):
        tokens.verify(SECRET, token[:-2] + "AA", "feedback", ISSUED, None)
    with pytest.raises(tokens.TokenError, match="tampered"):
        tokens.verify("another-secret-key-of-the-same-length-0123", token, "feedback", ISSUED, None)


def _spent_row(sessions: sessionmaker[Session], claims: tokens.Claims) -> UsedToken:
    with sessions() as session:
        used = session.get(UsedToken, claims.token_id)
        assert used is not None
        return used


def test_a_spent_sign_in_link_keeps_a_hash_of_the_browsers_nonce_not_the_nonce(
    sessions: sessionmaker[Session],
) -> None:
    claims = tokens.verify(
        SECRET, tokens.issue(SECRET, "signin", "a@x.org", ISSUED), "signin", ISSUED, None
    )
    with sessions.begin() as session:
        assert tokens.spend(session, claims, ISSUED, nonce="the-first-browser")
    assert (
        _spent_row(sessions, claims).nonce_hash == hashlib.sha256(b"the-first-browser").hexdigest()
    )


def test_a_repeat_within_the_grace_counts_only_from_the_browser_that_spent_the_link(
    sessions: sessionmaker[Session],
) -> None:
    claims = tokens.verify(
        SECRET, tokens.issue(SECRET, "signin", "a@x.org", ISSUED), "signin", ISSUED, None
    )
    moments_later = ISSUED + timedelta(seconds=5)
    with sessions.begin() as session:
        tokens.spend(session, claims, ISSUED, nonce="the-first-browser")
    with sessions.begin() as session:
        assert not tokens.spend(session, claims, moments_later, nonce="the-first-browser")
        with pytest.raises(tokens.TokenError, match="used"):
            tokens.spend(session, claims, moments_later, nonce="another-browser")


def test_a_confirmation_link_repeated_within_the_grace_does_nothing_again(
    sessions: sessionmaker[Session],
) -> None:
    claims = tokens.verify(
        SECRET, tokens.issue(SECRET, "confirm", "42", ISSUED), "confirm", ISSUED, None
    )
    with sessions.begin() as session:
        assert tokens.spend(session, claims, ISSUED)
    with sessions.begin() as session:
        assert not tokens.spend(session, claims, ISSUED + timedelta(seconds=5))
    assert _spent_row(sessions, claims).nonce_hash is None
