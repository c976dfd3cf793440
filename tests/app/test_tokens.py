from datetime import UTC, datetime, timedelta

import pytest

from app.core import tokens

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
