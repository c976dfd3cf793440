"""What the web's search and its API need of the search engine: the searcher and its query
embedder, the query's filters and answer, and the words a query asks for or leaves out.

These are the search package's values and pure helpers, named here so that the web reads
them through the use-case layer; the search runs in the searcher the web context holds.
"""

from __future__ import annotations

from ranking.embedder import served_query_embedder
from search.database_indexes import SearchPlace
from search.excluded_words import mentions, split_query
from search.query import MAX_MATCHES, Filters, Found, SearchSort, query_words, snippet
from search.searcher import Searcher, make_searcher

__all__ = [
    "MAX_MATCHES",
    "Filters",
    "Found",
    "SearchPlace",
    "SearchSort",
    "Searcher",
    "make_searcher",
    "mentions",
    "query_words",
    "served_query_embedder",
    "snippet",
    "split_query",
]
