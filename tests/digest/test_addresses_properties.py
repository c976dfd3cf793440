"""Email addresses as readers type them, at random: checked or refused, never a crash."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from accounts.addresses import Address, BadAddressError, parse_address

LOCAL = st.from_regex(r"[A-Za-z0-9_+-]{1,20}(\.[A-Za-z0-9_+-]{1,10}){0,2}", fullmatch=True)
DOMAIN = st.sampled_from(["example.org", "Example.ORG", "mail.example.co.uk", "exämple.org"])
TYPED = st.tuples(LOCAL, st.just("@"), DOMAIN).map("".join)
ODD = st.characters() | st.characters(categories=["Cc", "Cf", "Zs", "Zl", "Zp"])


@st.composite
def near_misses(draw: st.DrawFn) -> str:
    """A valid address with one character replaced or inserted, or surrounded by text."""
    text = draw(TYPED)
    at = draw(st.integers(0, len(text)))
    choice = draw(st.sampled_from(["replace", "insert", "around"]))
    if choice == "around":
        return draw(st.text(max_size=3)) + text + draw(st.text(max_size=3))
    rest = text[at + 1 :] if choice == "replace" else text[at:]
    return text[:at] + draw(ODD) + rest


def checked_or_refused(text: str) -> Address | None:
    try:
        return parse_address(text)
    except BadAddressError as error:
        assert str(error)  # the refusal says why
        return None


def _is_space_or_control(character: str) -> bool:
    return character.isspace() or unicodedata.category(character)[0] in "CZ"


@given(st.text(max_size=80) | near_misses())
@settings(max_examples=400, deadline=None)
def test_any_text_is_a_clean_address_or_refused_with_a_reason(text: str) -> None:
    address = checked_or_refused(text)
    if address is not None:
        assert isinstance(address.delivery, str) and "@" in address.delivery
        assert not any(_is_space_or_control(c) for c in address.delivery + address.key)
        assert checked_or_refused(address.delivery) == address  # checking twice changes nothing


@given(TYPED)
@settings(max_examples=100, deadline=None)
def test_a_mailbox_is_one_key_whatever_the_letter_case(text: str) -> None:
    local, _, domain = text.rpartition("@")
    shouted = parse_address(f"{local.swapcase()}@{domain.upper()}")
    assert shouted.key == parse_address(text).key
    assert shouted.delivery.startswith(f"{local.swapcase()}@")  # delivered as typed
