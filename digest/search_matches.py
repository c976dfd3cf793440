"""What each saved search finds among the papers of an edition's days (see
:mod:`digest.accounts.saved_searches`).

The deployment's own search runs each saved search once per edition, whoever saved it, over
the edition's days only: the same matches, best first, that the search page and the search's
feeds give for those days. The ``-word`` exclusions are applied by the digest's sections,
which hold each paper's text (:mod:`digest.sections`).
"""

from __future__ import annotations

from datetime import date

from digest.accounts.saved_searches import SavedQuery
from search.excluded_words import split_query
from search.query import Filters
from search.relevance import MAX_MATCHES, SearchSort
from search.searcher import Searcher


class SearchMatches:
    """Saved searches run over the days ``first`` to ``last``, each once."""

    def __init__(self, searcher: Searcher, first: date, last: date) -> None:
        self._searcher, self._first, self._last = searcher, first, last
        self._found: dict[SavedQuery, list[str]] = {}

    def __call__(self, saved: SavedQuery) -> list[str]:
        """The arXiv ids the search finds in those days, best first."""
        if saved not in self._found:
            words = split_query(saved.query).words
            filters = Filters(self._first, self._last, saved.category or None)
            found = self._searcher.search(words, filters)
            self._found[saved] = found.page(SearchSort.relevance, 1, MAX_MATCHES)
        return self._found[saved]
