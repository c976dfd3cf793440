"""The migration environment (migrations/env.py) on an in-memory SQLite database, whose one
connection is the database: nothing of the migration may throw it away."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from app.core.config import get_settings
from app.core.db import make_engine
from app.core.schema import head_revision, migrate


def test_an_in_memory_database_keeps_its_schema_and_foreign_keys_after_migrating(
    tmp_path: Path,
) -> None:
    engine = make_engine(get_settings(database_url="sqlite://", data_dir=tmp_path))
    try:
        migration = migrate(engine)
        assert migration.after == head_revision(engine)
        assert {"papers", "subscribers", "used_tokens"} <= set(inspect(engine).get_table_names())
        orphan = "INSERT INTO paper_categories (arxiv_id, category, position) VALUES ('x', 'y', 0)"
        with pytest.raises(IntegrityError), engine.begin() as connection:
            connection.execute(text(orphan))
    finally:
        engine.dispose()
