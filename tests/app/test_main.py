import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from app.config import get_settings
from app.db import make_engine
from app.main import create_app
from app.schema import head_revision
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
    body = response.json()
    assert body["status"] == "schema out of date"
    assert body["schema"] is None
    assert body["head"] == head_revision(make_engine(get_settings(data_dir=tmp_path)))


def test_importing_the_web_app_does_not_import_torch() -> None:
    # Web workers must start fast and small; the embedding model loads only in jobs.
    code = "import sys, app.main; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
