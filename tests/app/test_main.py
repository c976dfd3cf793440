from pathlib import Path

from fastapi.testclient import TestClient

from app.config import get_settings
from app.main import create_app
from tests.conftest import Database


def test_health_is_ok_on_a_migrated_database(database: Database) -> None:
    with TestClient(create_app(database.settings)) as client:
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


def test_health_fails_loudly_before_migration(tmp_path: Path) -> None:
    with TestClient(create_app(get_settings(data_dir=tmp_path))) as client:
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "schema out of date", "schema": None, "head": "0001"}
