"""The database schema's version: upgrade a database with Alembic and check it is current.

Migrations live in ``migrations/`` at the project root (inside the package once installed:
``app.core.bundled``); the Alembic configuration is built here rather than read from an ini
file, so every entry point migrates the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from app.core.bundled import BundledFolder, bundled_folder

MIGRATIONS_DIR = bundled_folder(BundledFolder.MIGRATIONS)


class SchemaOutOfDateError(RuntimeError):
    """Raised when a database is not at the newest migration."""


def alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("file_template", "%%(year)d_%%(month).2d_%%(day).2d_%%(rev)s_%%(slug)s")
    config.attributes["engine"] = engine
    return config


def upgrade_to_head(engine: Engine) -> None:
    """Apply every migration the database lacks (idempotent)."""
    command.upgrade(alembic_config(engine), "head")


@dataclass(frozen=True)
class Migration:
    """What ``paperboy migrate`` did: the revision before (None: an empty database) and after."""

    before: str | None
    after: str | None

    def describe(self) -> str:
        if self.before is None:
            return f"created the schema at revision {self.after}"
        if self.before == self.after:
            return f"the schema is up to date at revision {self.after}"
        return f"upgraded the schema from revision {self.before} to {self.after}"


def migrate(engine: Engine) -> Migration:
    """:func:`upgrade_to_head`, saying from which revision."""
    before = current_revision(engine)
    upgrade_to_head(engine)
    return Migration(before, current_revision(engine))


def head_revision(engine: Engine) -> str | None:
    return ScriptDirectory.from_config(alembic_config(engine)).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def require_current_schema(engine: Engine) -> None:
    """Refuse to work on a database that lacks migrations, with the command that fixes it."""
    current, head = current_revision(engine), head_revision(engine)
    if current != head:
        raise SchemaOutOfDateError(
            f"the database is at schema revision {current or 'none'}, not {head}; "
            "run `paperboy migrate` first"
        )
