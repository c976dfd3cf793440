"""Random damage to recorded responses, for the property tests of the parsers that read them.

Each damaged body is a recording with one to three changes, either byte-wise (a byte replaced,
the body cut short, a slice deleted, bytes inserted) or element-wise: an element without
children dropped or an element's text replaced by hostile text, escaped so the
XML stays well-formed and the parser's own checks are what is tested.
"""

from __future__ import annotations

import re
from xml.sax.saxutils import escape

from hypothesis import strategies as st

TEXT_SPAN = re.compile(rb">([^<]*)<")
LEAF_ELEMENT = re.compile(rb"<([\w:.-]+)[^<>]*>[^<]*</\1>|<[\w:.-]+[^<>]*/>")
# XML 1.0 holds no control characters but tab and line breaks: mostly text that stays XML.
XML_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cc"]), max_size=30)
HOSTILE_TEXT = (
    XML_TEXT
    | st.text(max_size=10)
    | st.sampled_from(
        ["", " ", "0", "-1", "99999999999999999999", "2023-02-30", "1e999", "\u202e", "é" * 3]
    )
)
BYTE_DAMAGE = ("flip", "truncate", "delete", "insert")
XML_DAMAGE = ("element", "text", "text")


@st.composite
def damaged(draw: st.DrawFn, recordings: list[bytes]) -> bytes:
    """Half of them broken byte-wise (mostly no longer XML), half element-wise (still XML)."""
    body = draw(st.sampled_from(recordings))
    kinds = st.sampled_from(BYTE_DAMAGE) if draw(st.booleans()) else st.sampled_from(XML_DAMAGE)
    for _ in range(draw(st.integers(1, 3))):
        body = _damage(draw, body, draw(kinds))
    return body


def _damage(draw: st.DrawFn, body: bytes, kind: str) -> bytes:
    at = draw(st.integers(0, len(body)))
    if kind == "flip" and at < len(body):
        return body[:at] + bytes([draw(st.integers(0, 255))]) + body[at + 1 :]
    if kind == "truncate":
        return body[:at]
    if kind == "delete":
        return body[:at] + body[draw(st.integers(at, min(len(body), at + 300))) :]
    if kind == "insert":
        return body[:at] + draw(st.binary(min_size=1, max_size=20)) + body[at:]
    if kind == "element":
        leaves = list(LEAF_ELEMENT.finditer(body))
        leaf = draw(st.sampled_from(leaves)) if leaves else None
        return body[: leaf.start()] + body[leaf.end() :] if leaf else body
    spans = list(TEXT_SPAN.finditer(body))
    if kind != "text" or not spans:
        return body
    span = draw(st.sampled_from(spans))
    text = escape(draw(HOSTILE_TEXT)).encode()
    return body[: span.start(1)] + text + body[span.end(1) :]
