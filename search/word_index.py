"""PostgreSQL's word index, and the word step of the search statement that asks it.

The index holds every paper's words in ``paper_search.document`` (title weighted A,
abstract B, author names C) behind a GIN index, and each word's paper count in
``paper_search_words`` (for relevance's rarity), both kept by statement triggers on ``papers``
and ``paper_authors``, so every writer keeps them current without knowing of them. Installed by
``search.database_indexes.install``.

The word step of the search statement (:mod:`search.in_database`) says which papers the word
index is asked for, before they are scored. Each template is a few CTEs ending in ``by_words``:
at most ``WORD_CANDIDATES`` papers (twice that where a filtered search tops up), best first by
``ts_rank`` over any query word. They read the CTEs ``words`` (the whole query, every word and
any word) and ``asked`` (each query word with its rarity and the papers holding it).

Both bound the papers read to rank by the rare words: a common word costs the index and the
ranking a read of most papers (in a store of machine-learning papers, "model" is in nearly
all), and adds little to a paper's score, where rarer words weigh more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlalchemy import Connection, text

SEARCH_TABLE = "paper_search"
GIN_INDEX = "ix_paper_search_document"


# The words of one paper, as search weighs them; also what a query is matched against.
DOCUMENT = (
    "setweight(to_tsvector('english', p.title), 'A') || "
    "setweight(to_tsvector('english', p.abstract), 'B') || "
    "setweight(to_tsvector('english', coalesce(("
    "SELECT string_agg(a.name, ' ' ORDER BY a.position) FROM paper_authors AS a "
    "WHERE a.arxiv_id = p.arxiv_id), '')), 'C')"
)

_WORDS_DDL = (
    "CREATE TABLE IF NOT EXISTS paper_search ("
    "arxiv_id varchar(40) PRIMARY KEY REFERENCES papers (arxiv_id) ON DELETE CASCADE, "
    "document tsvector NOT NULL)",
    f"CREATE INDEX IF NOT EXISTS {GIN_INDEX} ON paper_search USING gin (document)",
    # Recomputes the documents of the given papers (those that still exist).
    f"""CREATE OR REPLACE FUNCTION paper_search_refresh(ids text[]) RETURNS void
    LANGUAGE sql AS $$
        INSERT INTO paper_search (arxiv_id, document)
        SELECT p.arxiv_id, {DOCUMENT} FROM papers AS p WHERE p.arxiv_id = ANY(ids)
        ON CONFLICT (arxiv_id) DO UPDATE SET document = EXCLUDED.document
        WHERE paper_search.document IS DISTINCT FROM EXCLUDED.document
    $$""",  # noqa: S608 (DOCUMENT is a constant)
    # One function for every trigger: the changed rows' papers, from whichever transition
    # table the trigger has (statement-level, so a bulk write refreshes once per statement).
    """CREATE OR REPLACE FUNCTION paper_search_changed() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE added text[];
    BEGIN
        IF TG_OP = 'DELETE' THEN
            PERFORM paper_search_refresh(ARRAY(SELECT DISTINCT arxiv_id FROM old_rows));
        ELSIF TG_TABLE_NAME = 'paper_authors' AND TG_OP = 'INSERT' THEN
            -- A paper stored with its authors: its words so far are title and abstract, so
            -- the authors' are appended (the same tsvector as computing all again, for a
            -- fraction of the work). Papers that had authors already are computed again.
            WITH done AS (
                UPDATE paper_search AS s
                SET document = s.document || setweight(to_tsvector('english', f.names), 'C')
                FROM (SELECT n.arxiv_id, string_agg(n.name, ' ' ORDER BY n.position) AS names
                      FROM new_rows AS n GROUP BY n.arxiv_id
                      HAVING count(*) = (SELECT count(*) FROM paper_authors AS a
                                         WHERE a.arxiv_id = n.arxiv_id)) AS f
                WHERE s.arxiv_id = f.arxiv_id
                RETURNING s.arxiv_id
            )
            SELECT coalesce(array_agg(arxiv_id), '{}') INTO added FROM done;
            PERFORM paper_search_refresh(ARRAY(
                SELECT DISTINCT arxiv_id FROM new_rows WHERE arxiv_id <> ALL(added)));
        ELSIF TG_TABLE_NAME = 'papers' AND TG_OP = 'UPDATE' THEN
            -- Most updates of a paper (its version, dates, withdrawal) leave its words alone.
            PERFORM paper_search_refresh(ARRAY(
                SELECT n.arxiv_id FROM new_rows AS n JOIN old_rows AS o USING (arxiv_id)
                WHERE (n.title, n.abstract) IS DISTINCT FROM (o.title, o.abstract)));
        ELSE
            PERFORM paper_search_refresh(ARRAY(SELECT DISTINCT arxiv_id FROM new_rows));
        END IF;
        RETURN NULL;
    END $$""",
)
# How many papers hold each word (the empty word: how many papers there are), for the words'
# rarity (idf) at query time; kept by statement-level triggers on paper_search itself.
_COUNTS_DDL = (
    "CREATE TABLE IF NOT EXISTS paper_search_words (word text PRIMARY KEY, papers bigint NOT NULL)",
    """CREATE OR REPLACE FUNCTION paper_search_count() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            PERFORM paper_search_add(ARRAY(SELECT document FROM new_rows), 1);
        ELSIF TG_OP = 'DELETE' THEN
            PERFORM paper_search_add(ARRAY(SELECT document FROM old_rows), -1);
        ELSE
            PERFORM paper_search_add(ARRAY(SELECT document FROM old_rows), -1);
            PERFORM paper_search_add(ARRAY(SELECT document FROM new_rows), 1);
        END IF;
        RETURN NULL;
    END $$""",
    # Words in a fixed order: concurrent writers lock the same rows in the same order.
    """CREATE OR REPLACE FUNCTION paper_search_add(documents tsvector[], delta integer)
    RETURNS void LANGUAGE sql AS $$
        INSERT INTO paper_search_words AS c (word, papers)
        SELECT word, count(*) * delta FROM (
            SELECT unnest(tsvector_to_array(d)) AS word FROM unnest(documents) AS d
            UNION ALL SELECT '' FROM unnest(documents)
        ) AS w GROUP BY word ORDER BY word
        ON CONFLICT (word) DO UPDATE SET papers = c.papers + EXCLUDED.papers
    $$""",
)
# Every word's count of papers, from the documents (into an empty paper_search_words).
COUNT_WORDS = (
    "INSERT INTO paper_search_words (word, papers) "
    "SELECT word, ndoc FROM ts_stat('SELECT document FROM paper_search') "
    "UNION ALL SELECT '', count(*) FROM paper_search"
)
_COUNT_TRIGGERS = (
    ("paper_search", "INSERT", "NEW TABLE AS new_rows"),
    ("paper_search", "UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
    ("paper_search", "DELETE", "OLD TABLE AS old_rows"),
)
# (table, event, transition tables): PostgreSQL allows one event per trigger with them.
_TRIGGERS = (
    ("papers", "INSERT", "NEW TABLE AS new_rows"),
    ("papers", "UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
    ("paper_authors", "INSERT", "NEW TABLE AS new_rows"),
    ("paper_authors", "UPDATE", "NEW TABLE AS new_rows"),
    ("paper_authors", "DELETE", "OLD TABLE AS old_rows"),
)


def trigger_names() -> list[tuple[str, str]]:
    """(table, trigger) of every trigger that keeps the word index."""
    return [(table, _trigger_name(table, event)) for table, event, _ in _TRIGGERS + _COUNT_TRIGGERS]


def install_words(connection: Connection) -> None:
    """Make the word index (idempotent). Triggers a first import set off stay off: they mark
    its work left (``search.word_index_load``)."""
    exists = text("SELECT to_regclass(:table) IS NOT NULL")
    existed = connection.execute(exists, {"table": "paper_search"}).scalar_one()
    counted = connection.execute(exists, {"table": "paper_search_words"}).scalar_one()
    disabled = disabled_triggers(connection)
    for statement in _WORDS_DDL + _COUNTS_DDL:
        connection.execute(text(statement))
    _triggers(connection, _TRIGGERS, "paper_search_changed")
    if not existed:
        connection.execute(text("SELECT paper_search_refresh(ARRAY(SELECT arxiv_id FROM papers))"))
    if not counted:
        connection.execute(text(COUNT_WORDS))
    _triggers(connection, _COUNT_TRIGGERS, "paper_search_count")
    for table, name in disabled:
        connection.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER {name}"))


def _triggers(
    connection: Connection, triggers: tuple[tuple[str, str, str], ...], function: str
) -> None:
    for table, event, transition in triggers:
        name = _trigger_name(table, event)
        connection.execute(text(f"DROP TRIGGER IF EXISTS {name} ON {table}"))
        connection.execute(
            text(
                f"CREATE TRIGGER {name} AFTER {event} ON {table} REFERENCING {transition} "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
            )
        )


def _trigger_name(table: str, event: str) -> str:
    return f"{SEARCH_TABLE}_{table}_{event.lower()}"


def disabled_triggers(connection: Connection) -> list[tuple[str, str]]:
    """(table, trigger) of the word index's triggers that are set off."""
    names = {name for _, name in trigger_names()}
    rows = connection.execute(
        text(
            "SELECT c.relname, t.tgname FROM pg_trigger AS t "
            "JOIN pg_class AS c ON c.oid = t.tgrelid "
            "WHERE t.tgenabled = 'D' AND NOT t.tgisinternal "
            "AND c.oid IN (to_regclass('papers'), to_regclass('paper_authors'), "
            "to_regclass('paper_search'))"
        )
    ).all()
    return [(table, name) for table, name in rows if name in names]


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
