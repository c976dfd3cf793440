"""Tokens from untrusted text (links, forms, cookies): checked at random, never a crash."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta

from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.core import tokens

SECRET = "a-stable-secret-key-for-tests-0123456789"
NOW = datetime(2026, 6, 2, 9, 0, tzinfo=UTC)
BASE64URL = st.text(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=", max_size=80
)
LOOKS_LIKE_A_TOKEN = st.tuples(BASE64URL, st.sampled_from([".", "", ".."]), BASE64URL).map("".join)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)
CLAIMS = st.fixed_dictionaries(
    {},
    optional={
        "p": JSON | st.just("feedback"),
        "s": JSON,
        "i": JSON | st.integers(0, 2**40) | st.integers(10**300, 10**400),
        "j": JSON,
        "x_paper": JSON,
    },
)


def _encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def signed(body: str) -> str:
    """``body`` signed as the site signs a token (HMAC-SHA256 under the key, base64url)."""
    signature = hmac.new(SECRET.encode(), body.encode(), hashlib.sha256).digest()
    return f"{body}.{_encode(signature)}"


def claims_or_refusal(token: str) -> tokens.Claims | tokens.TokenError:
    try:
        return tokens.verify(SECRET, token, "feedback", NOW, timedelta(days=90))
    except tokens.TokenError as error:
        return error


@given(st.text(max_size=120) | LOOKS_LIKE_A_TOKEN)
@settings(max_examples=300, deadline=None)
def test_any_text_is_refused_with_a_reason_never_a_crash(text: str) -> None:
    result = claims_or_refusal(text)
    assert isinstance(result, tokens.TokenError) and result.reason


@given(st.binary(max_size=60).map(_encode) | CLAIMS.map(lambda c: _encode(json.dumps(c).encode())))
@example(_encode(b'{"p":"feedback","s":"1","i":1' + b"0" * 400 + b',"j":"a"}'))  # found by it
@settings(max_examples=300, deadline=None)
def test_a_correctly_signed_body_of_any_shape_gives_claims_or_a_refusal(body: str) -> None:
    assert isinstance(claims_or_refusal(signed(body)), tokens.Claims | tokens.TokenError)


@given(st.text(max_size=40), st.text(max_size=40))
@settings(max_examples=100, deadline=None)
def test_any_subject_and_extra_text_come_back_as_issued(subject: str, paper: str) -> None:
    token = tokens.issue(SECRET, "feedback", subject, NOW, paper=paper)
    claims = claims_or_refusal(token)
    assert isinstance(claims, tokens.Claims)
    assert (claims.subject, claims.extra) == (subject, {"paper": paper})
