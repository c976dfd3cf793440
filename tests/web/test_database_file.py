"""A SQLite file deleted or replaced under a running web process: ``/readyz`` says so and
requests that would write refuse with 503 (they would write into the lost file)."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings, get_settings
from app.core.db import open_engine
from app.core.schema import upgrade_to_head
from app.web.app import create_app


def migrated_file(data_dir: Path) -> Settings:
    settings = get_settings(data_dir=data_dir, search_semantic=False)
    with open_engine(settings) as engine:
        upgrade_to_head(engine)
    return settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return migrated_file(tmp_path / "live")


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        assert test_client.get("/readyz").json()["status"] == "ready"
        yield test_client


def database_path(settings: Settings) -> Path:
    return settings.data_dir / "paperboy.sqlite3"


def remove_database(settings: Settings) -> None:
    for path in settings.data_dir.glob("paperboy.sqlite3*"):
        path.unlink()


def test_a_deleted_database_file_is_not_ready(settings: Settings, client: TestClient) -> None:
    remove_database(settings)
    answer = client.get("/readyz")
    assert answer.status_code == 503
    assert answer.json()["status"] == "database file missing"


def test_a_replaced_database_file_is_not_ready(
    settings: Settings, client: TestClient, tmp_path: Path
) -> None:
    other = migrated_file(tmp_path / "other")
    database_path(other).replace(database_path(settings))
    answer = client.get("/readyz")
    assert answer.status_code == 503
    assert answer.json()["status"] == "database file replaced"


def test_a_post_into_a_deleted_database_file_is_refused(
    settings: Settings, client: TestClient
) -> None:
    remove_database(settings)
    answer = client.post("/subscribe", data={"email": "reader@example.org"})
    assert answer.status_code == 503
    assert "database file" in answer.text
    assert not database_path(settings).exists()
