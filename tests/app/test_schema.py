from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, inspect

from app.core.config import get_settings
from app.core.db import make_engine
from app.core.models import Base
from app.core.schema import (
    SchemaOutOfDateError,
    alembic_config,
    current_revision,
    head_revision,
    migrate,
    require_current_schema,
    upgrade_to_head,
)
from search.database_indexes import in_models
from tests.conftest import Database


def test_models_and_migrations_agree(database: Database) -> None:
    with database.engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "include_name": in_models}
        )
        assert compare_metadata(context, Base.metadata) == []


def test_a_migrated_database_is_at_head_and_upgrading_again_is_harmless(
    migrated_engine: Engine,
) -> None:
    upgrade_to_head(migrated_engine)
    assert current_revision(migrated_engine) == head_revision(migrated_engine) is not None
    require_current_schema(migrated_engine)


def test_an_unmigrated_database_is_refused_with_the_fix(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    engine = make_engine(get_settings(data_dir=tmp_path))
    request.addfinalizer(engine.dispose)
    with pytest.raises(SchemaOutOfDateError, match="run `paperboy migrate`"):
        require_current_schema(engine)
    upgrade_to_head(engine)
    require_current_schema(engine)
    assert {"papers", "authors", "paper_authors", "paper_categories", "ingest_runs"} <= set(
        inspect(engine).get_table_names()
    )


def test_migrating_an_older_database_says_from_which_revision(tmp_path: Path) -> None:
    engine = make_engine(get_settings(data_dir=tmp_path))
    command.upgrade(alembic_config(engine), "0010")
    done = migrate(engine)
    assert (done.before, done.after) == ("0010", head_revision(engine))
    assert done.describe() == f"upgraded the schema from revision 0010 to {done.after}"
    engine.dispose()
