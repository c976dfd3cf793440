"""The opening of an abstract: what a card shows before "more" and a digest item quotes (pure).

A sentence ends at ``.``, ``!`` or ``?`` followed by a space and a capital, a digit or an
opening mark, unless the word before is a common abbreviation ("e.g.", "et al.", "Fig.") or
the stop is inside inline maths (``$...$``) or a brace group (``\textbf{...}``). An opening
longer than its limit is cut at a word, never inside ``$...$`` or ``{...}`` (half a formula or
half a text command is neither TeX nor text: pages render each half on its own), and says so
with "…".
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
        if not (_tex_opening(text, stop.start()) >= 0 or _abbreviation(text, stop.start())):
            ends.append(stop.end())
            if len(ends) == count:
                return ends
    return [*ends, len(text)]


def _word_end(text: str, limit: int) -> int:
    """The last word boundary at or before ``limit`` outside ``$...$`` and ``{...}`` (the
    limit itself when there is none)."""
    end = text.rfind(" ", 0, limit + 1)
    while end > 0 and (opened := _tex_opening(text, end)) >= 0:
        end = text.rfind(" ", 0, opened)  # the last space before the formula or group
    return end if end > 0 else limit


def _tex_opening(text: str, position: int) -> int:
    """Where the formula or brace group holding ``position`` opens (the outermost one); -1
    when ``position`` is outside both."""
    openings = [_open_brace(text, position)]
    if _in_maths(text, position):
        openings.append(text.rfind("$", 0, position))
    inside = [opening for opening in openings if opening >= 0]
    return min(inside) if inside else -1


def _open_brace(text: str, position: int) -> int:
    """Where the outermost brace group still open at ``position`` opens; -1 when none is."""
    if "{" not in text[:position]:
        return -1
    depth, opened = 0, -1
    for at, character in enumerate(text[:position]):
        if character in "{}" and (at == 0 or text[at - 1] != "\\"):
            if character == "{":
                opened = at if depth == 0 else opened
                depth += 1
            elif depth:
                depth -= 1
    return opened if depth else -1


def _in_maths(text: str, position: int) -> bool:
    """Whether ``position`` lies between an opening and a closing unescaped ``$``."""
    before = text[:position].replace("\\$", "")
    return before.count("$") % 2 == 1


def _abbreviation(text: str, position: int) -> bool:
    # The word before the stop: the longest abbreviation is short, so a few characters do.
    word = _LAST_WORD.search(text[max(0, position - 12) : position])
    return word is not None and word.group(1).lower() in _ABBREVIATIONS
