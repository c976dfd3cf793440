"""TeX accents in author names, decoded to Unicode: ``P\\'erez`` is "Pérez".

arXiv keeps the author line as its submitter typed it, and many type TeX: ``Bal\\'azs``,
``{\\O}bro``, ``\\v{S}r\\'amek``, ``Garc\\'{\\i}a``. Shown raw, the name reads as markup; keyed
raw, ``P\\'erez`` would be ``p-erez``, another author than "Pérez".

The rules, those of TeX for the forms people type in names:

* An accent command puts its accent on the next letter, bare or braced: ``\\'e``, ``\\'{e}``,
  ``{\\'e}``; a letter command (``\\c``, ``\\v``, ``\\u``, ``\\H``, ``\\k``, ``\\r``, ``\\d``,
  ``\\b``) is followed by a braced letter or a space and the letter: ``\\v{s}``, ``\\v s``. The
  letter may be a dotless ``\\i`` or ``\\j`` (``\\'\\i`` is "í") or already accented
  (``Nguy\\~ên`` is "Nguyễn").
* A letter command (``\\o``, ``\\ss``, ``\\aa``, ``\\l``, ``\\ae``, ``\\i``, ...) is its
  letter, bare or braced (``{\\o}``, ``\\o{}``). TeX eats the space after it; here only before a
  lower-case letter (``S\\o ren`` is "Søren"), because a name written ``Mart\\'\\i Vidal`` means
  two words.
* Braces around plain text only group, and go once the commands inside are decoded:
  ``{\\'A}lvarez`` is "Álvarez", ``{van der} Berg`` is "van der Berg".
* A doubled backslash before a command is one (arXiv's feeds escape it: ``P\\\\'erez``).
* Anything else (an unknown command, a stray backslash) is left as written.

The result is in NFC, so a decoded name equals the same name typed in Unicode.
"""

from __future__ import annotations

import re
import unicodedata

# Accent commands and the combining mark each puts on its letter.
_MARKS = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "c": "\u0327",
    "v": "\u030c",
    "u": "\u0306",
    "H": "\u030b",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
    "b": "\u0331",
}
# Letters TeX names with a command.
_LETTERS = {
    "o": "ø",
    "O": "Ø",
    "ss": "ß",
    "aa": "å",
    "AA": "Å",
    "l": "ł",
    "L": "Ł",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "i": "\u0131",
    "j": "\u0237",
}
# Under an accent, a dotless letter is the plain one: \\'\\i is "í", as \\'i is.
_DOTLESS = {"i": "i", "j": "j"}

_LETTER = r"[^\W\d_]"
# TeX eats the space after a command word; here only before a lower-case letter (module rules).
_COMMAND_END = r"(?:\{\}| (?=[a-z]))?"


def _base(tag: str) -> str:
    """The accented letter: a letter, or a dotless \\i or \\j, which ends as a letter command
    does (:data:`_LETTER_COMMAND`)."""
    return rf"(?:(?P<{tag}letter>{_LETTER})|\\+(?P<{tag}dotless>[ij])(?![A-Za-z]){_COMMAND_END})"


# Braces around the whole ("{\'e}") are left to _PLAIN_GROUP, which drops them with the others.
_ACCENT = re.compile(
    r"\\+(?:(?P<symbol>['`^\"~=.])|(?P<command>[cvuHkrdb])(?![A-Za-z])\s*)"
    rf"(?:\{{\s*{_base('braced_')}\s*\}}|{_base('bare_')})"
)
_LETTER_COMMAND = re.compile(
    r"\\+(?P<name>"
    + "|".join(sorted(_LETTERS, key=len, reverse=True))
    + r")(?![A-Za-z])"
    + _COMMAND_END
)
# A group of plain text, and the unknown command it may be the argument of (then it stays).
_PLAIN_GROUP = re.compile(r"(\\[A-Za-z]+)?\{([^{}\\]*)\}")


def decode_tex_accents(text: str) -> str:
    """``text`` with its TeX accents and letters in Unicode (see the module's rules)."""
    if "\\" not in text and "{" not in text:  # nearly every name: nothing to decode
        return text
    decoded = _LETTER_COMMAND.sub(_letter, _ACCENT.sub(_accented, text))
    while True:  # innermost groups first: "{{\\o}}" is "ø"
        ungrouped = _PLAIN_GROUP.sub(_ungrouped, decoded)
        if ungrouped == decoded:
            return unicodedata.normalize("NFC", decoded)
        decoded = ungrouped


def _accented(match: re.Match[str]) -> str:
    mark = _MARKS[match["symbol"] or match["command"]]
    letter = match["braced_letter"] or match["bare_letter"]
    if letter is None:
        letter = _DOTLESS[match["braced_dotless"] or match["bare_dotless"]]
    return unicodedata.normalize("NFC", letter + mark)


def _ungrouped(match: re.Match[str]) -> str:
    return match[0] if match[1] else match[2]


def _letter(match: re.Match[str]) -> str:
    return _LETTERS[match["name"]]
