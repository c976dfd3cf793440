"""Shared fixtures: real settings and a real, migrated database.

The suite runs on SQLite by default. With ``PAPERBOY_TEST_DATABASE_URL`` set to a PostgreSQL
server URL (``postgresql+psycopg://user:pass@host/anydb``), it creates a fresh database on that
server for the session and runs every test there instead (``.ci/run`` does both).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings, get_settings
from app.core.db import make_engine, make_session_factory
from app.core.models import Base
from app.core.schema import upgrade_to_head
from tests.postgres import scratch_postgres_database

TEST_DATABASE_ENV = "PAPERBOY_TEST_DATABASE_URL"
PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_PATH = PROJECT_ROOT / "app" / "sample" / "arxiv_listings_sample.jsonl.gz"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Apps made by tests load the search model on their first semantic search, not as they start
# (which takes seconds); tests/search/test_in_process.py starts one that preloads.
os.environ.setdefault("PAPERBOY_SEARCH_PRELOAD", "false")
# Their query model is torch's: the int8 one would be built (seconds) in each test's DATA_DIR;
# tests/ranking/test_onnx_encoder.py holds the int8 one to the same results.
os.environ.setdefault("PAPERBOY_SEARCH_QUERY_BACKEND", "torch")


@dataclass(frozen=True)
class Database:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server_url = os.environ.get(TEST_DATABASE_ENV)
    if not server_url:
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'paperboy-test.sqlite3'}"
        return
    with scratch_postgres_database(server_url, "paperboy_test") as url:
        yield url


@pytest.fixture(scope="session")
def migrated_engine(
    database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    settings = get_settings(database_url=database_url, data_dir=tmp_path_factory.mktemp("data"))
    engine = make_engine(settings)
    upgrade_to_head(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def database(migrated_engine: Engine, tmp_path: Path) -> Iterator[Database]:
    """A migrated database, emptied after the test (tests may commit, as jobs do)."""
    settings = get_settings(
        database_url=migrated_engine.url.render_as_string(hide_password=False), data_dir=tmp_path
    )
    yield Database(settings, migrated_engine, make_session_factory(migrated_engine))
    with migrated_engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            connection.execute(table.delete())


@pytest.fixture
def sessions(database: Database) -> sessionmaker[Session]:
    return database.sessions


@pytest.fixture(scope="session")
def int8_query_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The int8 query model production searches with, built once a session (with torch, as the
    embed step builds it)."""
    from ranking.embedder import resolve_model_path
    from ranking.onnx_model import cached_model_path

    source = Path(resolve_model_path(get_settings().embedding_model))
    return cached_model_path(source, tmp_path_factory.mktemp("onnx") / "models")


def with_int8_query_model(settings: Settings, model: Path, data_dir: Path) -> Settings:
    """``settings`` searching with the int8 model, placed in ``data_dir`` as the embed step
    leaves it (so no test builds it again)."""
    (data_dir / "models").mkdir(parents=True, exist_ok=True)
    shutil.copy(model, data_dir / "models" / model.name)
    return settings.model_copy(update={"data_dir": data_dir, "search_query_backend": "onnx-int8"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Groups for ``pytest -n`` (``--dist loadgroup``): the web tests share a filled site built
    once per package, so they run together on one worker (else each batch a worker is sent ends
    by tearing the site down); every other file is a group of its own (module fixtures)."""
    for item in items:
        path = Path(str(item.path)).relative_to(PROJECT_ROOT)
        group = "tests/web" if path.parts[:2] == ("tests", "web") else str(path)
        item.add_marker(pytest.mark.xdist_group(group))
