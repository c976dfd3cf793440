"""The opening of an abstract: what a card shows before "more" and a digest item quotes (pure).

A sentence ends at ``.``, ``!`` or ``?`` followed by a space and a capital, a digit or an
opening mark, unless the word before is a common abbreviation ("e.g.", "et al.", "Fig.") or
the stop is inside inline maths (``$...$``). An opening longer than its limit is cut at a word,
never inside ``$...$`` (a half formula is neither TeX nor text), and says so with "…".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CARD_SENTENCES = 2
CARD_LIMIT = 300
ELLIPSIS = "\N{HORIZONTAL ELLIPSIS}"

_STOP = re.compile("[.!?](?=\\s+[A-Z0-9(\\[\"'\u201c\u2018$\\\\])")
_ABBREVIATIONS = frozenset(
    {"e.g", "i.e", "al", "etc", "vs", "cf", "fig", "figs", "eq", "eqs", "sec", "ref", "approx"}
)
_LAST_WORD = re.compile(r"([A-Za-z.]+)$")


@dataclass(frozen=True, slots=True)
class Excerpt:
    """``lead`` is shown; ``rest`` (empty when the lead is everything) waits behind "more".

    ``cut`` is true when the lead stops mid-sentence (it then ends with "…").
    """

    lead: str = ""
    rest: str = ""
    cut: bool = False


def excerpt(text: str, sentences: int = CARD_SENTENCES, limit: int = CARD_LIMIT) -> Excerpt:
    """As many of the first ``sentences`` sentences of ``text`` (whitespace collapsed) as fit in
    ``limit`` characters, else the first sentence cut at a word; the remainder as ``rest``."""
    text = " ".join(text.split())
    ends = _sentence_ends(text, sentences)
    fitting = [end for end in ends if end <= limit]
    end, cut = (fitting[-1], False) if fitting else (_word_end(text, limit), True)
    lead, rest = text[:end].rstrip(), text[end:].strip()
    if cut and rest:
        lead += ELLIPSIS
    return Excerpt(lead, rest, cut and bool(rest))


def first_sentence(text: str, limit: int = CARD_LIMIT) -> str:
    """The first sentence of ``text``, cut at a word (with "…") beyond ``limit`` characters."""
    return excerpt(text, 1, limit).lead


def _sentence_ends(text: str, count: int) -> list[int]:
    """Where each of the first ``count`` sentences ends (the text's end closing the last)."""
    ends: list[int] = []
    for stop in _STOP.finditer(text):
        if not (_in_maths(text, stop.start()) or _abbreviation(text, stop.start())):
            ends.append(stop.end())
            if len(ends) == count:
                return ends
    return [*ends, len(text)]


def _word_end(text: str, limit: int) -> int:
    """The last word boundary at or before ``limit`` outside ``$...$`` (the limit itself
    when one word is longer than that)."""
    end = text.rfind(" ", 0, limit + 1)
    while end > 0 and _in_maths(text, end):
        end = text.rfind(" ", 0, text.rfind("$", 0, end))
    return end if end > 0 else limit


def _in_maths(text: str, position: int) -> bool:
    """Whether ``position`` lies between an opening and a closing unescaped ``$``."""
    before = text[:position].replace("\\$", "")
    return before.count("$") % 2 == 1


def _abbreviation(text: str, position: int) -> bool:
    # The word before the stop: the longest abbreviation is short, so a few characters do.
    word = _LAST_WORD.search(text[max(0, position - 12) : position])
    return word is not None and word.group(1).lower() in _ABBREVIATIONS
