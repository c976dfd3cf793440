"""Words a search asks its matches to be without: ``-word`` in the query (pure).

``graph networks -molecule`` searches for "graph networks" and drops every match whose title
or abstract holds the word "molecule" (as a whole word, in any case), as arXiv's and most
search engines' minus does. A hyphen inside a word (``state-of-the-art``) is not a minus.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.core.refusals import BadInput

# A minus at the start of the query or after a space, then a word (letters, digits, and the
# joiners of names like "gpt-4" or "c++").
_MINUS = re.compile(r"(?:^|(?<=\s))-(\w[\w.+-]*)")
# More would only slow every match down; no real query needs them.
MAX_EXCLUDED = 10


@dataclass(frozen=True, slots=True)
class Asked:
    """A query split into what is searched for and the words matches must not hold."""

    words: str
    without: tuple[str, ...] = ()


class TooManyExcludedError(BadInput, ValueError):
    def __init__(self, count: int) -> None:
        super().__init__(f"a search may exclude at most {MAX_EXCLUDED} words, not {count}")


def split_query(query: str) -> Asked:
    """The query without its ``-word`` parts, and those words (casefolded, each once)."""
    without = tuple(dict.fromkeys(word.casefold() for word in _MINUS.findall(query)))
    if len(without) > MAX_EXCLUDED:
        raise TooManyExcludedError(len(without))
    words = " ".join(_MINUS.sub(" ", query).split())
    return Asked(words, without)


def mentions(text: str, words: Iterable[str]) -> bool:
    """Whether ``text`` holds any of ``words`` as a whole word, in any case."""
    folded = text.casefold()
    return any(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", folded) for word in words)
