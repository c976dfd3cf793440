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
    drawn = "".join(c for c in folded if unicodedata.category(c) != "Cf" and c not in _BLANK)
    return collapse_whitespace(drawn)
