"""What a search is asked and what it answers, whichever store searches.

:class:`Filters` narrow the papers searched; :class:`Found` holds the matches, best first;
:data:`QueryModel` loads the model that embeds a query's words (the embedder of
:mod:`ranking.embedder`, handed in by whoever builds a searcher: search itself loads none).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from app.core.config import Settings
from app.core.vectors import Matrix
from search.relevance import Match, SearchSort, arrange


@dataclass(frozen=True, slots=True)
class Filters:
    since: date | None = None
    until: date | None = None
    category: str | None = None


@dataclass(frozen=True, slots=True)
class Found:
    """A search's matches, best first (at most ``MAX_MATCHES``), with their ids."""

    matches: list[Match]
    ids: dict[int, str]

    def page(self, sort: SearchSort, number: int, size: int) -> list[str]:
        """The ids on page ``number`` (from 1) of ``size`` matches in the order asked."""
        chosen = arrange(self.matches, sort)[(number - 1) * size : number * size]
        return [self.ids[match.row] for match in chosen]


class QueryEncoder(Protocol):
    """Turns a query's text into its unit vector (one row per text)."""

    def encode(self, texts: Sequence[str]) -> Matrix: ...


# Loads the query model for these settings; called on the first semantic search, or warm().
QueryModel = Callable[[Settings], QueryEncoder]
