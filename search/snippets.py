"""The passage of an abstract that holds most of a query's words, those words marked (pure).

A reader trusts a result when they can see why it came: the snippet is the window of about
``WIDTH`` characters with the most distinct query words, cut at words, each query word in
``<mark>``. The text is HTML-escaped piece by piece before any mark is added, so markup in an
abstract stays text. A query word marks any word it begins ("expert" marks "experts") once it
is ``PREFIX_MIN`` letters long, since the keyword index has no stemming either way and readers
type singulars; shorter ones must match whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from markupsafe import Markup, escape

WIDTH = 240
PREFIX_MIN = 4
ELLIPSIS = "\N{HORIZONTAL ELLIPSIS}"
_WORD = re.compile(r"\w\w+")  # the keyword index's own notion of a word


@dataclass(frozen=True, slots=True)
class _Hit:
    start: int
    end: int
    word: str  # the query word it matches


def query_words(query: str) -> frozenset[str]:
    """The query's words worth marking: lower case, no English stop words."""
    return frozenset(w for w in (m.lower() for m in _WORD.findall(query)) if w not in _stops())


def snippet(text: str, words: Iterable[str], width: int = WIDTH) -> Markup:
    """About ``width`` characters of ``text`` around its query words, escaped and marked."""
    text = " ".join(text.split())
    hits = _hits(text, frozenset(words))
    start, end = _window(text, hits, width)
    inside = [hit for hit in hits if hit.start >= start and hit.end <= end]
    marked = _marked(text, start, end, inside)
    before = ELLIPSIS if start > 0 else ""
    after = ELLIPSIS if end < len(text) else ""
    return escape(before) + marked + escape(after)


def _hits(text: str, words: frozenset[str]) -> list[_Hit]:
    found = []
    for match in _WORD.finditer(text):
        word = _matching(match.group().lower(), words)
        if word is not None:
            found.append(_Hit(match.start(), match.end(), word))
    return found


def _matching(token: str, words: frozenset[str]) -> str | None:
    if token in words:
        return token
    for word in words:
        if len(word) >= PREFIX_MIN and token.startswith(word):
            return word
    return None


def _window(text: str, hits: list[_Hit], width: int) -> tuple[int, int]:
    """The span of about ``width`` characters, cut at spaces, with the most distinct words."""
    if len(text) <= width:
        return 0, len(text)
    best, most = 0, 0
    for first in hits:
        distinct = len({hit.word for hit in hits if first.start <= hit.start < first.start + width})
        if distinct > most:
            best, most = first.start, distinct
    # Some context before the first word, so the passage does not start mid-thought.
    start = max(0, min(best - width // 6, len(text) - width))
    if start > 0:
        start = text.find(" ", start) + 1 or start
    end = min(len(text), start + width)
    if end < len(text):
        end = text.rfind(" ", start, end + 1) if " " in text[start:end] else end
    return start, end


def _marked(text: str, start: int, end: int, hits: list[_Hit]) -> Markup:
    parts = []
    cursor = start
    for hit in hits:
        parts.append(escape(text[cursor : hit.start]))
        parts.append(Markup("<mark>%s</mark>") % text[hit.start : hit.end])
        cursor = hit.end
    parts.append(escape(text[cursor:end]))
    return Markup("").join(parts)


@cache
def _stops() -> frozenset[str]:
    # scikit-learn's list, the one the keyword index drops; imported on first use only.
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)
