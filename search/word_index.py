"""PostgreSQL's word index: every paper's words in ``paper_search.document`` (title weighted A,
abstract B, author names C) behind a GIN index, and each word's paper count in
``paper_search_words`` (for relevance's rarity), both kept by statement triggers on ``papers``
and ``paper_authors``, so every writer keeps them current without knowing of them. Installed by
``search.database_indexes.install``.
"""

from __future__ import annotations

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
