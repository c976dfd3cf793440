"""Search and similar papers answered by PostgreSQL itself (pgvector HNSW + full-text GIN).

The web process holds no index: one SQL statement gathers candidates from both indexes (the
nearest papers in meaning, and papers holding the query's words), scores each as the
in-process search does, and keeps the matches by the same rules (:mod:`search.query`):

- ``meaning``: the cosine of the paper's ``halfvec`` with the query's;
- ``keyword``: the ``ts_rank`` of each query word in the paper's words (title A, abstract B,
  authors C), averaged with the words' rarity (idf, from ``paper_search_words``) as weights,
  times ``KEYWORD_SCALE`` to reach the tf-idf cosine's range (chosen on the tune half of the
  known-item queries, ``benchmarks/search_eval_pg.py``, docs/benchmarks.md);
- ``coverage``: the share of the query's word rarity that the paper holds (1: every word; a
  word no paper holds counts as the rarest, and as missing).

Whether some paper holds every query word (else the closest matches are admitted too) is
asked of the candidates: the word step's are papers holding every word, unless the words
are too common to narrow the search, and then the nearest in meaning that hold them all say so.

Which papers the word index is asked for is :mod:`search.word_index`'s. The indexes are
made by migration 0014 and kept by :mod:`search.database_indexes`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.vectors import Matrix
from search.database_indexes import halfvec_text
from search.index import NO_DATE
from search.query import (
    ALL_WORDS,
    FUSION,
    MAX_MATCHES,
    Filters,
    Found,
    Fusion,
    Match,
    QueryEncoder,
    QueryModel,
    typed_words,
)
from search.query_model import WordsOnly, embedded_or_none
from search.word_index import NO_FILTER, SHIPPED_BOUNDS, WEIGHTS, WordBounds, by_words

# What warm() searches for: common words, so it reads much of both indexes' upper pages.
WARM_QUERY = "learning models for language and images"
# ts_rank (normalised by document length) times this is on the tf-idf cosine's scale.
KEYWORD_SCALE = 8.0
# Nearest papers in meaning, taken as candidates before the cut-off (with the word step's).
VECTOR_CANDIDATES = 300
# HNSW's search breadth: above the candidates asked (pgvector returns at most ef_search rows
# per scan pass), and high enough for recall@10 >= 0.95 against exact search.
EF_SEARCH = 400


@dataclass(frozen=True, slots=True)
class Scoring:
    """What the statement needs besides the query: the model, fusion and scale."""

    model: str
    fusion: Fusion = FUSION
    keyword_scale: float = KEYWORD_SCALE


def _filters(filters: Filters) -> tuple[str, dict[str, Any]]:
    """The WHERE conditions on ``p`` (papers) for the filters, and their parameters."""
    conditions, params = [NO_FILTER], dict[str, Any]()
    if filters.since is not None:
        conditions.append("p.announced_on >= :since")
        params["since"] = filters.since
    if filters.until is not None:
        conditions.append("p.announced_on <= :until")
        params["until"] = filters.until
    if filters.category is not None:
        conditions.append(
            "EXISTS (SELECT 1 FROM paper_categories AS c "
            "WHERE c.arxiv_id = p.arxiv_id AND c.category = :category)"
        )
        params["category"] = filters.category
    return " AND ".join(conditions), params


def _papers_for(where: str, alias: str) -> str:
    """The join to ``papers`` that the filters read, or none: unfiltered, a common word's
    tens of thousands of matches would each look their paper up before the LIMIT, a cost
    that grows with the store; only the final rows look their day up."""
    if where == NO_FILTER:
        return ""
    return f" JOIN papers AS p ON p.arxiv_id = {alias}.arxiv_id"


# Each query word is its token parsed alone ("frequency-time": the compound and its parts)
# where that parse holds the token's own lexeme and only words of the whole query: a link's
# "/org/repo?tab=x" alone is '/org/repo' & 'tab' & 'x', which no paper giving the link holds,
# and the word step's shortcut and the coverage need each word to be the query's. Otherwise
# the word is the lexeme itself, quoted so that it is taken as it is (chr(92), the backslash,
# whatever the string settings). A word too long for the index (over LONGEST_WORD bytes; the
# whole query drops it too) is no word.
LEXEME = (
    "CAST('''' || replace(replace(t.lexemes[1], chr(92), repeat(chr(92), 2)), '''', '''''')"
    " || '''' AS tsquery)"
)
LONGEST_WORD = 2046  # bytes: PostgreSQL's limit for a lexeme in a tsquery

_WORDS = """
words AS (
    SELECT q.every_word, CAST(replace(CAST(q.every_word AS text), ' & ', ' | ') AS tsquery)
               AS any_word
    FROM (SELECT plainto_tsquery('english', :query) AS every_word) AS q
),
asked AS (
    SELECT DISTINCT ON (k.lexeme) k.word, k.rarity, k.papers FROM (
        SELECT t.lexemes[1] AS lexeme,
               CASE WHEN octet_length(t.lexemes[1]) > {longest} OR numnode(a.alone) = 0
                        THEN NULL
                    WHEN w.every_word @> a.alone AND a.alone @> {lexeme} THEN a.alone
                    ELSE {lexeme} END AS word,
               ln((coalesce(n.papers, 0) + 1.0) / (coalesce(c.papers, 0) + 1.0)) + 1 AS rarity,
               coalesce(c.papers, 0) AS papers
        FROM ts_debug('english', :query) AS t
        CROSS JOIN LATERAL (SELECT plainto_tsquery('english', t.token) AS alone) AS a
        CROSS JOIN words AS w
        LEFT JOIN paper_search_words AS n ON n.word = ''
        LEFT JOIN paper_search_words AS c ON c.word = t.lexemes[1]
        WHERE cardinality(t.lexemes) > 0
    ) AS k
    WHERE k.word IS NOT NULL
    ORDER BY k.lexeme, CAST(k.word AS text)
),
{by_words}"""

_NEAREST = """
nearest AS (
    SELECT e.arxiv_id, 1 - ({distance}) AS meaning
    FROM paper_embeddings AS e{papers}
    WHERE e.model = :model AND e.dimensions = {d} AND {where}
    ORDER BY {distance} LIMIT {vectors}
)"""

# The nearest carry their meaning; a paper found by words only looks its vector up.
_BOTH = """SELECT arxiv_id, meaning FROM nearest
UNION ALL
SELECT b.arxiv_id, (
    SELECT 1 - ({distance}) FROM paper_embeddings AS e
    WHERE e.arxiv_id = b.arxiv_id AND e.model = :model AND e.dimensions = {d}
) FROM by_words AS b WHERE b.arxiv_id NOT IN (SELECT arxiv_id FROM nearest)"""

_SCORED = """
candidates AS ({candidates}),
documents AS MATERIALIZED (  -- each read from its TOAST once, not once per query word
    SELECT c.arxiv_id, c.meaning, s.document || ''::tsvector AS document
    FROM candidates AS c LEFT JOIN paper_search AS s ON s.arxiv_id = c.arxiv_id
),
scored AS MATERIALIZED (
    SELECT c.arxiv_id, coalesce(c.meaning, 0) AS meaning,
           c.meaning IS NOT NULL AS has_vector,
           CASE WHEN c.document @@ w.any_word THEN :scale * (
               SELECT sum(a.rarity * ts_rank({weights}, c.document, a.word, 1)) / sum(a.rarity)
               FROM asked AS a) ELSE 0 END AS keyword,
           coalesce((SELECT sum(a.rarity) FILTER (WHERE c.document @@ a.word) / sum(a.rarity)
                     FROM asked AS a), 0) AS coverage
    FROM documents AS c, words AS w
)"""

_JUDGED = """,
held AS (
    SELECT EXISTS (SELECT 1 FROM scored WHERE keyword > 0 AND coverage >= :all_words)
        AS every_word
),
judged AS (
    SELECT s.arxiv_id, CASE
        WHEN NOT s.has_vector THEN CASE WHEN s.keyword > 0 THEN s.keyword END
        WHEN s.meaning >= :strong OR (s.keyword > 0 AND s.coverage >= :all_words)
             OR (s.keyword > 0 AND s.meaning >= :related
                 AND s.meaning + :weight * s.keyword >= :floor)
             OR (NOT h.every_word AND s.keyword > 0 AND s.coverage >= :closest_share
                 AND s.meaning >= :closest_meaning)
        THEN s.meaning + :weight * s.keyword + :coverage_weight * s.coverage
    END AS relevance
    FROM scored AS s, held AS h
)
SELECT j.arxiv_id, p.announced_on, j.relevance, h.every_word FROM (
    SELECT arxiv_id, relevance FROM judged WHERE relevance IS NOT NULL
    ORDER BY relevance DESC, arxiv_id LIMIT {limit}
) AS j JOIN papers AS p ON p.arxiv_id = j.arxiv_id CROSS JOIN held AS h
ORDER BY j.relevance DESC, j.arxiv_id"""


def search_statement(filters: Filters, dimensions: int | None) -> tuple[str, dict[str, Any]]:
    """The one statement of a search; ``dimensions`` of the query vector, None: words only."""
    statement, params = candidates_statement(filters, dimensions)
    return statement + _JUDGED.format(limit=MAX_MATCHES), params


def candidates_statement(
    filters: Filters, dimensions: int | None, bounds: WordBounds = SHIPPED_BOUNDS
) -> tuple[str, dict[str, Any]]:
    """The candidates and their scores (CTE ``scored``), before the cut-off and the order.

    The dimension is written into the SQL, not bound: the planner must see the partial HNSW
    index's ``dimensions = n`` and its ``halfvec(n)`` cast to use it. ``bounds``: how many
    papers the word step may read (:mod:`search.word_index`).
    """
    where, params = _filters(filters)
    words = by_words(
        where,
        _papers_for(where, "s"),
        with_meaning=dimensions is not None,
        bounds=bounds,
    )
    parts = [_WORDS.format(by_words=words, lexeme=LEXEME, longest=LONGEST_WORD)]
    candidates = "SELECT arxiv_id, CAST(NULL AS float8) AS meaning FROM by_words"
    if dimensions is not None:
        d = int(dimensions)
        distance = f"e.embedding::halfvec({d}) <=> CAST(:vector AS halfvec({d}))"
        papers = _papers_for(where, "e")
        parts.append(
            _NEAREST.format(
                d=d, where=where, vectors=VECTOR_CANDIDATES, distance=distance, papers=papers
            )
        )
        candidates = _BOTH.format(d=d, distance=distance)
    parts.append(_SCORED.format(candidates=candidates, weights=WEIGHTS))
    return "WITH " + ",".join(parts), params


def _scoring_params(scoring: Scoring) -> dict[str, Any]:
    fusion = scoring.fusion
    return {
        "model": scoring.model,
        "scale": scoring.keyword_scale,
        "strong": fusion.strong_meaning,
        "related": fusion.related_meaning,
        "floor": fusion.floor,
        "weight": fusion.keyword_weight,
        "all_words": ALL_WORDS,
        "closest_share": fusion.closest_share,
        "closest_meaning": fusion.closest_meaning,
        "coverage_weight": fusion.coverage_weight,
    }


def run_search(
    session: Session, query: str, vector: Matrix | None, filters: Filters, scoring: Scoring
) -> Found:
    """The matches, best first, as the in-process search returns them (rows numbered here)."""
    statement, params = search_statement(filters, None if vector is None else len(vector))
    params |= _scoring_params(scoring) | {"query": query}
    if vector is not None:
        params["vector"] = halfvec_text(vector)
        tune_hnsw(session)
    rows = session.execute(text(statement), params).all()
    matches = [
        Match(i, float(row.relevance), _ordinal(row.announced_on)) for i, row in enumerate(rows)
    ]
    every = not rows or rows[0].every_word
    return Found(
        matches,
        {i: row.arxiv_id for i, row in enumerate(rows)},
        () if every else typed_words(query),
    )


def _ordinal(day: date | None) -> int:
    return NO_DATE if day is None else day.toordinal()


def tune_hnsw(session: Session) -> None:
    # Iterative scans keep reading the graph until the filtered LIMIT is met (pgvector 0.8);
    # relaxed order is fine: candidates are scored and ordered again afterwards.
    # (set_config(..., true) is SET LOCAL: both in one round trip.)
    session.execute(
        text(
            "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
            f"set_config('hnsw.ef_search', '{EF_SEARCH}', true)"
        )
    )


def nearest_papers(session: Session, arxiv_id: str, model: str, limit: int) -> list[str]:
    """Papers closest in meaning to a stored paper (itself excluded), by the HNSW index."""
    own = session.execute(
        text(
            "SELECT dimensions, CAST(embedding AS text) AS vector FROM paper_embeddings "
            "WHERE arxiv_id = :id AND model = :model AND embedding IS NOT NULL"
        ),
        {"id": arxiv_id, "model": model},
    ).first()
    if own is None:
        return []
    d = int(own.dimensions)
    tune_hnsw(session)
    distance = f"e.embedding::halfvec({d}) <=> CAST(:vector AS halfvec({d}))"
    rows = session.execute(
        text(
            f"SELECT arxiv_id FROM (SELECT e.arxiv_id, {distance} AS distance "  # noqa: S608 (an int)
            f"FROM paper_embeddings AS e WHERE e.model = :model AND e.dimensions = {d} "
            f"AND e.arxiv_id <> :id ORDER BY {distance} LIMIT :limit) AS near "
            "WHERE distance < 1"
        ),
        {"id": arxiv_id, "model": model, "vector": own.vector, "limit": limit},
    )
    return [row.arxiv_id for row in rows]


class DatabaseSearch:
    """The :class:`search.searcher.Searcher` of a PostgreSQL with pgvector."""

    def __init__(
        self, settings: Settings, sessions: Callable[[], Session], query_model: QueryModel
    ) -> None:
        # A session per search: on a read replica where the deployment has fit ones (it may
        # come in a transaction already, to have proved its connection).
        self._settings = settings
        self._sessions = sessions
        self._query_model = query_model
        self._scoring = Scoring(settings.embedding_model)
        self._lock = threading.Lock()
        self._embedder: QueryEncoder | None = None
        self._words_only = WordsOnly()

    def search(self, query: str, filters: Filters) -> Found:
        """Every match, best first (its caller waits its turn: :mod:`app.web.search_turns`)."""
        vector = self._embed(query) if self._settings.search_semantic else None
        with self._sessions() as session:
            return run_search(session, query, vector, filters, self._scoring)

    def similar(self, arxiv_id: str, limit: int) -> list[str]:
        """Papers closest in meaning to a stored paper (itself excluded)."""
        with self._sessions() as session:
            return nearest_papers(session, arxiv_id, self._settings.embedding_model, limit)

    def warm(self) -> None:
        """Load the query model and run one search, so the first reader's waits for neither.

        The search reads the top of the HNSW graph and the word index into the server's
        buffers: on a database server just started, the first search at 1M papers is slow.
        """
        self.search(WARM_QUERY, Filters())

    def _embed(self, query: str) -> Matrix | None:
        return embedded_or_none(self.embed, query, self._words_only)

    def embed(self, texts: Sequence[str]) -> Matrix:
        """``texts`` as the query model reads them, one row each (it loads on first use)."""
        with self._lock:
            self._embedder = self._embedder or self._query_model(self._settings)
            return np.asarray(self._embedder.encode(list(texts)), dtype=np.float32)
