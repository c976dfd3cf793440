"""The names a reader gives things (reading lists, saved searches): kept in Unicode's
compatibility form (NFKC) with whitespace collapsed, refused when nothing of them can be seen,
and compared as a reader reads them, without case or invisible characters.

Invisible means: format characters (zero-width spaces and joiners, bidirectional controls, the
byte order mark), whitespace, marks with no letter to sit on, private and unassigned code
points, and the few letters and symbols that draw nothing (Hangul fillers, the Braille blank,
the replacement characters a broken encoding leaves).
"""

from __future__ import annotations

import unicodedata

from app.core.names import collapse_whitespace

# Letters, numbers, punctuation and symbols draw something, but for these.
_DRAWN = frozenset("LNPS")
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\ufffc\ufffd")
# Unicode's default-ignorable code points that are no format character: variation selectors,
# the combining grapheme joiner, Mongolian free variation selectors, Hangul fillers and the
# reserved tag range. A name holding them reads as the name without them.
_IGNORABLE = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0000, 0xE0FFF),
)


def kept_form(text: str) -> str:
    """The text as it is stored: NFKC, runs of whitespace one space, ends trimmed."""
    return collapse_whitespace(unicodedata.normalize("NFKC", text))


def is_visible(text: str) -> bool:
    """Whether the text holds at least one character that draws something."""
    return any(unicodedata.category(c)[0] in _DRAWN and c not in _BLANK for c in text)


def comparison_key(text: str) -> str:
    """What two names must share to be the same name to a reader: equal once normalized,
    case-folded and stripped of the characters that draw nothing."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return collapse_whitespace("".join(c for c in folded if not _draws_nothing(c)))


def _draws_nothing(character: str) -> bool:
    point = ord(character)
    return (
        unicodedata.category(character) == "Cf"
        or character in _BLANK
        or any(first <= point <= last for first, last in _IGNORABLE)
    )
