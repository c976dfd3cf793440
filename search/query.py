"""What a search is asked and what it answers, whichever store searches: which papers match, in
which order, and the passage that shows why.

:class:`Filters` narrow the papers searched; :class:`Found` holds the matches, best first;
:data:`QueryModel` loads the model that embeds a query's words (the embedder of
:mod:`ranking.embedder`, handed in by whoever builds a searcher: search itself loads none).

What matches and in which order is decided purely, scores in and rows out (:func:`relevance`,
:func:`arrange`). Each paper has three scores for a query: ``keyword``, the tf-idf cosine of its
words with the query's (0 when no query word occurs in it); ``coverage``, the share of the
query's word weight (idf) that occurs in it (1: every query word); and ``meaning``, the cosine
of its embedding with the query's. The rules, tuned on half of a known-item evaluation and
measured on the other half (``benchmarks/search_eval.py``, docs/benchmarks.md "Search quality"):

- A paper matches when its meaning alone is close (``strong_meaning``), or when it holds every
  query word, or when it holds some, its meaning is at least related (``related_meaning``) and
  both together reach ``floor``. A weak meaning-only neighbour never enters: every query has
  nearest neighbours, even nonsense, and the former rank fusion let them ride high on rank
  alone. So a query that matches nothing gets no results, rather than the nearest noise.
- Its relevance is ``meaning + keyword_weight * keyword + coverage_weight * coverage``:
  scores, not ranks, so a paper that is merely the 5th nearest in meaning does not outrank a
  close keyword match, and papers holding more of the words a reader typed come first.
- Where no paper searched holds every query word (one word a reader typed is in none of the
  papers that have the others), the closest matches come too: papers holding at least
  ``closest_share`` of the words' weight whose meaning reaches ``closest_meaning``. One stray
  word no longer empties an answer; nonsense, whose words few papers hold and whose meaning
  is far from all of them, still finds nothing.
- Without meaning (no model, or a paper without a vector yet) any word match counts, ranked by
  its keyword score: there is nothing to tell a stray word from a meant one.

A reader trusts a result when they can see why it came: the snippet (:func:`snippet`, pure) is
the window of about ``WIDTH`` characters with the most distinct query words, cut at words, each
query word in ``<mark>``. The text is HTML-escaped piece by piece before any mark is added, so
markup in an abstract stays text. A query word marks any word it begins ("expert" marks
"experts") once it is ``PREFIX_MIN`` letters long, since the keyword index has no stemming
either way and readers type singulars; shorter ones must match whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from functools import cache
from typing import Any, Protocol

import numpy as np
from markupsafe import Markup, escape
from numpy.typing import NDArray

from app.core.config import Settings
from app.core.vectors import Matrix


@dataclass(frozen=True, slots=True)
class Filters:
    since: date | None = None
    until: date | None = None
    category: str | None = None


@dataclass(frozen=True, slots=True)
class Found:
    """A search's matches, best first (at most ``MAX_MATCHES``), with their ids.

    ``not_all_matched``: the query's words when no paper holds every one of them, so that the
    matches are the closest ones (:func:`relevance`); empty when some paper holds them all.
    """

    matches: list[Match]
    ids: dict[int, str]
    not_all_matched: tuple[str, ...] = ()

    def page(self, sort: SearchSort, number: int, size: int) -> list[str]:
        """The ids on page ``number`` (from 1) of ``size`` matches in the order asked."""
        chosen = arrange(self.matches, sort)[(number - 1) * size : number * size]
        return [self.ids[match.row] for match in chosen]


class QueryEncoder(Protocol):
    """Turns a query's text into its unit vector (one row per text)."""

    def encode(self, texts: Sequence[str]) -> Matrix: ...


# Loads the query model for these settings; called on the first semantic search, or warm().
QueryModel = Callable[[Settings], QueryEncoder]


class QueryModelMissingError(Exception):
    """The query model is not built yet and this process may not build it (a web process,
    which would load torch to): searches go by words alone until it exists."""


# Matches kept per query: more is never read (a reader pages through a few dozen at most).
MAX_MATCHES = 200

Floats = NDArray[np.floating[Any]]


class SearchSort(StrEnum):
    relevance = "relevance"
    newest = "newest"


@dataclass(frozen=True, slots=True)
class Fusion:
    keyword_weight: float = 2.0
    strong_meaning: float = 0.5
    related_meaning: float = 0.45
    floor: float = 0.8
    coverage_weight: float = 4.0
    # Closest matches, when no paper holds every query word (see the module's docstring).
    closest_share: float = 0.6
    closest_meaning: float = 0.25


# Coverage of "every query word", short of 1.0 for float sums.
ALL_WORDS = 0.999


@dataclass(frozen=True, slots=True)
class Words:
    """Each paper's keyword score and coverage (see the module's docstring)."""

    keyword: NDArray[np.float64]
    coverage: NDArray[np.float64]


FUSION = Fusion()


@dataclass(frozen=True, slots=True)
class Match:
    row: int
    relevance: float
    announced: int  # ordinal day; lower than any real day when unknown


def relevance(
    words: Words,
    meaning: Floats | None,
    has_vector: NDArray[np.bool_],
    fusion: Fusion,
    every_word_held: bool = True,
) -> NDArray[np.float64]:
    """Each paper's relevance to the query; ``-inf`` where it is not a match.

    ``every_word_held``: whether some paper searched holds every query word; where none does,
    the closest matches are admitted too.
    """
    keyword = words.keyword
    by_words = np.where(keyword > 0, keyword, -np.inf)
    if meaning is None:
        return by_words
    close = np.asarray(meaning, dtype=np.float64)
    fused = close + fusion.keyword_weight * keyword
    some_words = keyword > 0
    admitted = (
        (close >= fusion.strong_meaning)
        | (some_words & (words.coverage >= ALL_WORDS))
        | (some_words & (close >= fusion.related_meaning) & (fused >= fusion.floor))
    )
    if not every_word_held:
        admitted |= (
            some_words
            & (words.coverage >= fusion.closest_share)
            & (close >= fusion.closest_meaning)
        )
    ranked = fused + fusion.coverage_weight * words.coverage
    with_meaning = np.where(admitted, ranked, -np.inf)
    return np.where(has_vector, with_meaning, by_words)


def every_word_held(words: Words, allowed: NDArray[np.bool_]) -> bool:
    """Whether some allowed paper holds every query word."""
    return bool(np.any(allowed & (words.keyword > 0) & (words.coverage >= ALL_WORDS)))


def best_rows(scores: Floats, allowed: NDArray[np.bool_], count: int) -> list[int]:
    """Rows with the highest finite scores among the allowed ones, best first."""
    scored = np.where(allowed, scores, -np.inf)
    count = min(count, int(np.isfinite(scored).sum()))
    if count == 0:
        return []
    best = np.argpartition(-scored, count - 1)[:count]
    return [int(i) for i in best[np.argsort(-scored[best], kind="stable")]]


def arrange(matches: list[Match], sort: SearchSort) -> list[Match]:
    """The matches in the order asked: by relevance, or newest first (relevance breaks ties)."""
    if sort is SearchSort.newest:
        return sorted(matches, key=lambda match: (-match.announced, -match.relevance))
    return sorted(matches, key=lambda match: -match.relevance)


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
    return frozenset(typed_words(query))


def typed_words(query: str) -> tuple[str, ...]:
    """The query's words worth marking, in the order typed, each once."""
    found = (m.lower() for m in _WORD.findall(query))
    return tuple(dict.fromkeys(w for w in found if w not in _stops()))


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
