"""The word step of the search statement (:mod:`search.in_database`): which papers the word
index is asked for, before they are scored.

Each template is a few CTEs ending in ``by_words``: at most ``WORD_CANDIDATES`` papers (twice
that where a filtered search tops up), best first by ``ts_rank`` over any query word. They
read the CTEs ``words`` (the whole query, every word and any word) and ``asked`` (each query
word with its rarity and the papers holding it).

Both bound the papers read to rank by the rare words: a common word costs the index and the
ranking a read of most papers (in a store of machine-learning papers, "model" is in nearly
all), and adds little to a paper's score, where rarer words weigh more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# The filters' WHERE when there are none (search.in_database writes it).
NO_FILTER = "TRUE"
# Papers by words, taken as candidates before the cut-off.
WORD_CANDIDATES = 300
WEIGHTS = "'{0.1, 0.2, 0.4, 1.0}'"  # ts_rank's weights of D, C (authors), B (abstract), A (title)
RANK = f"ts_rank({WEIGHTS}, s.document, w.any_word, 1)"
# Every word's shortcut: the index asked for the rare words only.
RAREST_WORDS = 3
RARE_WORD_RARITY = round(math.log(10) + 1, 4)  # the rarity (idf) of a word held by 10%
CHECKED_ROWS = 2000
# Words only: the most papers the rarest query words may hold together to be asked for alone.
WORD_POOL = 20_000

# Words only: papers holding some query word, each scored by the words it holds. The index
# is asked for the rarest words, in turn from the rarest, while together they are held by at
# most ``pool`` papers (the rarest held word is within it whenever this branch is taken; a
# word no paper holds costs nothing); a paper holding only common words scores below one
# holding a rare word unless it holds the common ones in its title. Where even the rarest
# is held by more, every word is common, and the papers holding every word that some paper
# holds are ranked: all of them, as many as that is (a one-word query of a common word reads
# every holder).
SOME_RARE_WORD = """pool AS (
    SELECT CAST(CASE WHEN min(r.papers) FILTER (WHERE r.papers > 0) > {pool}
        THEN string_agg('(' || CAST(r.word AS text) || ')', ' & ') FILTER (WHERE r.papers > 0)
        ELSE string_agg('(' || CAST(r.word AS text) || ')', ' | ') FILTER (WHERE r.held <= {pool})
    END AS tsquery) AS words
    FROM (SELECT a.word, a.papers, sum(a.papers) OVER (
              ORDER BY a.papers, CAST(a.word AS text) ROWS UNBOUNDED PRECEDING) AS held
          FROM asked AS a) AS r
),
{ranked}"""

# The pool's papers inside the filters, best first.
_POOL_BEST = """SELECT s.arxiv_id
    FROM paper_search AS s{papers}, words AS w, pool AS r
    WHERE s.document @@ r.words AND {where}
    ORDER BY {rank} DESC LIMIT {words}"""

_POOL_RANKED = "by_words AS (\n    " + _POOL_BEST + "\n)"

# A filtered search: the pool's papers may all fall outside the filter, while papers inside
# it hold the other words. Where the pool leaves none, the papers holding any word inside the
# filter are ranked, as many as that is, so a filter never empties an answer the words have.
_POOL_RANKED_OR_ANY = (
    "by_pool AS MATERIALIZED (\n    "  # noqa: S608 (constant templates)
    + _POOL_BEST
    + """
),
by_words AS (
    SELECT arxiv_id FROM by_pool
    UNION ALL
    (SELECT s.arxiv_id
     FROM paper_search AS s{papers}, words AS w
     WHERE NOT EXISTS (SELECT 1 FROM by_pool) AND s.document @@ w.any_word AND {where}
     ORDER BY {rank} DESC LIMIT {words})
)"""
)

# With meaning: papers holding every query word (a paper holding some is a match only when
# close in meaning, and those are among the nearest). The GIN index is asked for the rare
# words (the RAREST_WORDS rarest, and any held by under a tenth of the papers), and up to
# CHECKED_ROWS of the papers holding them are checked for the other words in the row. Where
# more hold them, the query's rarest words together are common: holding them says little
# that the nearest in meaning do not, and ranking every holder by its words would cost the
# most of the search, so the words add no candidates; the nearest are still scored by the
# words they hold.
EVERY_WORD = """rare AS (
    SELECT CAST(string_agg(CAST(r.word AS text), ' & ') AS tsquery) AS words FROM (
        (SELECT word FROM asked ORDER BY rarity DESC LIMIT {rarest})
        UNION SELECT word FROM asked WHERE rarity > {rare}
    ) AS r
),
holding_rare AS MATERIALIZED (
    SELECT s.arxiv_id, s.document FROM paper_search AS s, rare AS r
    WHERE s.document @@ r.words LIMIT {checked} + 1
),
by_words AS (
    SELECT s.arxiv_id
    FROM holding_rare AS s{papers}, words AS w
    WHERE (SELECT count(*) FROM holding_rare) <= {checked}
          AND ts_match_vq(s.document, w.every_word) AND {where}
    ORDER BY {rank} DESC LIMIT {words}
)"""


@dataclass(frozen=True, slots=True)
class WordBounds:
    """How many papers the word step may read: ``checked_rows`` with meaning (papers holding
    the rare words, checked for the others), ``pool`` without (papers holding the rarest)."""

    checked_rows: int = CHECKED_ROWS
    pool: int = WORD_POOL


SHIPPED_BOUNDS = WordBounds()


def by_words(where: str, papers: str, *, with_meaning: bool, bounds: WordBounds) -> str:
    """The ``by_words`` CTE for the filters' ``where`` on ``p`` and their join ``papers``."""
    if not with_meaning:
        ranked = _POOL_RANKED if where == NO_FILTER else _POOL_RANKED_OR_ANY
        return SOME_RARE_WORD.format(
            pool=int(bounds.pool),
            ranked=ranked.format(where=where, papers=papers, rank=RANK, words=WORD_CANDIDATES),
        )
    return EVERY_WORD.format(
        where=where,
        papers=papers,
        rank=RANK,
        words=WORD_CANDIDATES,
        rarest=RAREST_WORDS,
        rare=RARE_WORD_RARITY,
        checked=int(bounds.checked_rows),
    )
