import os
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


def test_the_web_app_factory_refuses_bad_production_settings_in_words(tmp_path: Path) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    environment |= {"PAPERBOY_ENV": "production", "PAPERBOY_DATA_DIR": str(tmp_path)}
    command = ["-m", "uvicorn", "app.main:create_app", "--factory", "--port", "0"]
    done = subprocess.run(
        [sys.executable, *command], env=environment, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "paperboy web: refused: PAPERBOY_SECRET_KEY" in done.stderr
    assert "paperboy web: refused: PAPERBOY_PUBLIC_BASE_URL" in done.stderr
