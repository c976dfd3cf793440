"""The documented way to write a migration works: plain ``alembic`` autogenerates one.

docs/development.md tells a developer to migrate a scratch database and run
``alembic revision --autogenerate``; this runs that command, in a copy of the migrations so the
tree is left as it was, against a database at the newest revision.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from sqlalchemy import Engine

from app.core.schema import head_revision
from tests.conftest import PROJECT_ROOT
from tests.migrations.conftest import database_at

NEW_REVISION = "9999"


def autogenerate(engine: Engine, workdir: Path) -> subprocess.CompletedProcess[str]:
    """Run the documented command in ``workdir``, a copy of the project's Alembic set-up."""
    shutil.copy(PROJECT_ROOT / "pyproject.toml", workdir)
    shutil.copytree(PROJECT_ROOT / "migrations", workdir / "migrations")
    url = engine.url.render_as_string(hide_password=False)
    env = os.environ | {"PAPERBOY_DATABASE_URL": url, "PYTHONPATH": str(PROJECT_ROOT)}
    command = ["alembic", "revision", "--autogenerate", "--rev-id", NEW_REVISION, "-m", "probe"]
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=workdir, env=env, capture_output=True, text=True
    )


def test_alembic_autogenerates_a_migration_after_the_newest(tmp_path: Path) -> None:
    workdir = tmp_path / "project"
    workdir.mkdir()
    with database_at("head", tmp_path) as engine:
        head = head_revision(engine)
        done = autogenerate(engine, workdir)

    assert done.returncode == 0, done.stdout + done.stderr
    [written] = (workdir / "migrations" / "versions").glob(f"*_{NEW_REVISION}_probe.py")
    text = written.read_text()
    assert f"down_revision: str | None = {head!r}" in text
    # Models and migrations agree, so nothing is there to generate.
    assert "op." not in text
