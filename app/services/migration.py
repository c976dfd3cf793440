"""``paperboy migrate``: the schema brought to the newest revision, then the search indexes
completed (a word index a killed first import left, vectors once pgvector is there).
"""

from __future__ import annotations

from sqlalchemy import Engine

from app.core.schema import migrate
from search.database_indexes import PLACE_LINES, search_place
from search.database_indexes import complete as complete_search_indexes


def migrate_store(engine: Engine) -> list[str]:
    """Migrate and complete the indexes; what was done and where searches run, in lines."""
    done = migrate(engine)
    lines = [f"{done.describe()}: {engine.url.render_as_string(hide_password=True)}"]
    complete_search_indexes(engine)
    lines.append(PLACE_LINES[search_place(engine)])
    return lines
