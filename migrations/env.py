"""Alembic environment: runs migrations on the engine handed over by ``app.core.schema``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Engine

from app.core.models import Base
from app.core.search_store import in_models

config = context.config


def run_migrations(engine: Engine) -> None:
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=Base.metadata,
            # SQLite cannot ALTER most things in place; batch mode copies the table instead.
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
            include_name=in_models,
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


engine = config.attributes.get("engine")
if not isinstance(engine, Engine):
    raise RuntimeError(
        "run migrations through `paperboy migrate` (app.core.schema), not bare alembic"
    )
run_migrations(engine)
