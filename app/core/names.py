"""Names: an author's, and the names a reader gives things.

An author's name gives the key that identifies the author across papers and in URLs, and the
parts a reference writes ("Vaswani, Ashish"): arXiv lists a name as its forenames, then its
keyname, then a suffix, so the keyname is the last word, with the lower-case particles before it
("van der Waals") and without a suffix ("Jr."). A name that is not a person's (a
collaboration), is one word, or holds anything but letters, marks, apostrophes, hyphens and
periods has no parts: a reference writes it whole, as it is stored.

Same name, same key: "José Pérez", "Jose Perez", "JOSÉ PÉREZ" and ``Jos\\'e P\\'erez`` are all
``jose-perez``.
Paperboy cannot tell two people with one name apart, and says so on the author page.

The names a reader gives things (reading lists, saved searches) are kept in Unicode's
compatibility form (NFKC) with whitespace collapsed, refused when nothing of them can be seen,
and compared as a reader reads them, without case or invisible characters.

Invisible means: format characters (zero-width spaces and joiners, bidirectional controls, the
byte order mark), whitespace, marks with no letter to sit on, private and unassigned code
points, and the few letters and symbols that draw nothing (Hangul fillers, the Braille blank,
the replacement characters a broken encoding leaves).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.tex import decode_tex_accents

MAX_KEY_LENGTH = 200
# Letters that Unicode does not decompose into a base letter plus an accent.
_UNDECOMPOSABLE = str.maketrans(
    {
        "ø": "o",
        "Ø": "o",
        "ł": "l",
        "Ł": "l",
        "đ": "d",
        "Đ": "d",
        "ð": "d",
        "þ": "th",
        "æ": "ae",
        "Æ": "ae",
        "œ": "oe",
        "Œ": "oe",
        "\u0131": "i",
    }  # dotless i
)
_NOT_ALNUM = re.compile(r"[\W_]+")
# For ASCII names: letters in lower case, every other non-alphanumeric character a space.
_ASCII_WORDS = str.maketrans(
    {chr(code): chr(code).lower() if chr(code).isalnum() else " " for code in range(128)}
)


def collapse_whitespace(text: str) -> str:
    """Runs of whitespace (line breaks included) become one space; ends are trimmed."""
    # Most titles and names are already collapsed: C-level checks prove it without splitting.
    if _is_collapsed(text):
        return text
    # Abstracts are often hard-wrapped and nothing else: replacing line breaks is enough then.
    unwrapped = text.replace("\n", " ")
    if _is_collapsed(unwrapped):
        return unwrapped
    # str.split() splits on every Unicode whitespace run and is faster than a regex here.
    return " ".join(text.split())


def _is_collapsed(text: str) -> bool:
    if text.isascii():  # known without reading the text; arXiv abstracts are ASCII (TeX)
        # Each `in` is a fast substring search; `isprintable` looks every character up in the
        # Unicode tables and takes twice as long over an abstract. These are ASCII's whitespace.
        spaced = (
            "\n" in text
            or "  " in text
            or "\t" in text
            or "\r" in text
            or "\x0b" in text
            or "\x0c" in text
            or "\x1c" in text
            or "\x1d" in text
            or "\x1e" in text
            or "\x1f" in text
        )
    else:
        spaced = not text.isprintable() or "  " in text
    return not spaced and text[:1] != " " and text[-1:] != " "


def collapse_each(texts: list[str]) -> tuple[str, ...]:
    """:func:`collapse_whitespace` of each text, empty results left out.

    Author lists are almost always clean already; a few C-level checks of the joined list prove
    it, where a call per name costs more than the rest of parsing a listing record. Raises
    ``TypeError`` if an item is not a string.
    """
    joined = "|".join(texts)
    if not joined:
        return ()
    # Clean: the joined list is collapsed, and no name is empty or starts or ends with a space.
    # A "|" inside a name can only make a clean list look unclean, never the reverse.
    if (
        _is_collapsed(joined)
        and not any(pair in joined for pair in _UNCLEAN_PAIRS)
        and joined[0] != "|"
        and joined[-1] != "|"
    ):
        return tuple(texts)
    return tuple(name for name in map(collapse_whitespace, texts) if name)


_UNCLEAN_PAIRS = (" |", "| ", "||")


# Joins the names of one author list: collapsed names never hold it (str.split() takes it for
# whitespace), and bytes.split() keeps it inside a word.
_NAME_SEPARATOR = "\x1f"
# _ASCII_WORDS as a byte table (bytes.translate is several times faster), keeping the separator.
_ASCII_WORD_BYTES = bytes(
    code if chr(code) == _NAME_SEPARATOR else ord(_ASCII_WORDS.get(code, " "))
    for code in range(256)
)


def author_key(name: str) -> str:
    """The URL-safe key of an author name: accents folded, lower case, words joined by '-'.

    TeX accents are decoded first, so ``P\\'erez`` keys as "Pérez" does, not as ``p-erez``.
    """
    if "\\" in name:
        name = decode_tex_accents(name)
    if name.isascii():  # most names: nothing to fold, and folding is the slow part
        # The same key as the general path below, in a third of its time.
        return "-".join(name.translate(_ASCII_WORDS).split())[:MAX_KEY_LENGTH].rstrip("-")
    decomposed = unicodedata.normalize("NFKD", name.translate(_UNDECOMPOSABLE))
    folded = "".join(char for char in decomposed if not unicodedata.combining(char))
    return _NOT_ALNUM.sub("-", folded.casefold()).strip("-")[:MAX_KEY_LENGTH].rstrip("-")


class _AuthorKeyCache(dict[str, str]):
    """Author keys by name: authors recur across papers, and folding a name costs more than
    looking it up. A dict rather than ``lru_cache`` because a hit then costs no Python call;
    emptied when full, to keep memory bounded."""

    LIMIT = 500_000

    def __missing__(self, name: str) -> str:
        if len(self) >= self.LIMIT:
            self.clear()
        key = self[name] = author_key(name)
        return key


# :func:`author_key`, remembered: for bulk imports and author histories, which fold the same
# names over and over.
cached_author_key = _AuthorKeyCache().__getitem__


def author_keys(names: Sequence[str]) -> tuple[str, ...]:
    """:func:`author_key` of each name of an author list.

    An ASCII list (nine in ten) is keyed all at once, in C: a bulk import keys half a million
    names, and a call per name took a sixth of preparing a record.
    """
    joined = _NAME_SEPARATOR.join(names)
    if (
        not joined.isascii()
        or "\\" in joined  # TeX accents to decode
        or joined.count(_NAME_SEPARATOR) != len(names) - 1
    ):
        return tuple(map(cached_author_key, names))
    # Every word of the list joined by "-", then the dashes beside a separator dropped: each
    # name's words joined by "-".
    dashed = b"-".join(joined.encode().translate(_ASCII_WORD_BYTES).split())
    separator = _NAME_SEPARATOR.encode()
    keys = (
        dashed.replace(b"-" + separator, separator)
        .replace(separator + b"-", separator)
        .decode()
        .split(_NAME_SEPARATOR)
    )
    if len(joined) > MAX_KEY_LENGTH:  # a key can be too long only if the names are
        keys = [key[:MAX_KEY_LENGTH].rstrip("-") for key in keys]
    return tuple(keys)


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


@dataclass(frozen=True, slots=True)
class NameParts:
    """A person's name as references write it: family name first."""

    family: str
    given: str
    suffix: str = ""

    @property
    def inverted(self) -> str:
        """ "Family, Given" (and ", Suffix"): what arXiv's ``citation_author`` and RIS write."""
        return ", ".join(part for part in (self.family, self.given, self.suffix) if part)


_PARTICLES = frozenset(
    {"van", "von", "der", "den", "de", "del", "della", "dei", "degli", "di", "da", "das", "dos"}
    | {"do", "du", "la", "le", "les", "ter", "ten", "zu", "zur", "y"}
)
_SUFFIXES = frozenset(["jr", "jr.", "sr", "sr.", "ii", "iii", "iv"])
_GROUP_WORDS = frozenset(
    {"collaboration", "collaborations", "consortium", "team", "group", "collective", "project"}
    | {"others", "al"}
)
# A word of a person's name: letters, then letters, combining accents, apostrophes (straight
# or typographic), periods and hyphens.
_NAME_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|[\u0300-\u036f'\u2019.-])*")


def name_parts(name: str) -> NameParts | None:
    """The family and given names of an author's name, or None when it has none (see above)."""
    words = collapse_whitespace(name).split()
    if len(words) < 2 or not all(_NAME_WORD.fullmatch(word) for word in words):
        return None
    if _GROUP_WORDS.intersection(word.lower().strip(".") for word in words):
        return None
    suffix = ""
    if len(words) > 2 and words[-1].lower() in _SUFFIXES:
        suffix, words = words[-1], words[:-1]
    start = len(words) - 1
    while start > 1 and words[start - 1] in _PARTICLES:
        start -= 1
    return NameParts(" ".join(words[start:]), " ".join(words[:start]), suffix)


# The words that end a group author's name ("ATLAS Collaboration", "Kling Team", "Global
# Radiology Consortium"), none of them a surname found among the stored authors.
_GROUP_ENDINGS = frozenset(
    {"collaboration", "collaborations", "consortium", "team", "initiative", "contributors"}
)
# Words that also end a few people's names ("Group", "Lab" are surnames): a group only when
# two more words come before ("CRUK ICGC Prostate Group", "Shanghai AI Lab").
_LONG_GROUP_ENDINGS = frozenset({"group", "lab", "labs"})


def is_group_key(key: str) -> bool:
    """Whether an author key (:func:`author_key`) names a group that signs as one author, not
    a person: "Team" anywhere in it ("Team Olmo", "Imagen-Team-Google"), or one of the
    endings above. One word alone ("Team") is a name like any other."""
    words = key.split("-")
    if len(words) < 2:
        return False
    if words[-1] in _GROUP_ENDINGS or "team" in words:
        return True
    return len(words) >= 3 and words[-1] in _LONG_GROUP_ENDINGS
