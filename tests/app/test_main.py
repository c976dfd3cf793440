import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from fastapi.testclient import TestClient

from app.core.config import get_settings
from app.core.db import make_engine
from app.core.schema import head_revision, upgrade_to_head
from app.web.app import create_app
from tests.conftest import Database
from tests.servers import free_port


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


def test_importing_the_web_app_does_not_import_torch_or_the_learners() -> None:
    # Web workers must start fast and small; the embedding model and the trending model's
    # learners (scikit-learn, LightGBM) load only in jobs, or on first use.
    heavy = "('torch', 'sklearn', 'lightgbm')"
    code = f"import sys, app.web.app; sys.exit(any(m in sys.modules for m in {heavy}))"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_the_web_app_factory_refuses_bad_production_settings_in_words(tmp_path: Path) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    environment |= {"PAPERBOY_ENV": "production", "PAPERBOY_DATA_DIR": str(tmp_path)}
    command = ["-m", "uvicorn", "app.web.app:create_app", "--factory", "--port", "0"]
    done = subprocess.run(
        [sys.executable, *command],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "paperboy web: refused: PAPERBOY_SECRET_KEY" in done.stderr
    assert "paperboy web: refused: PAPERBOY_PUBLIC_BASE_URL" in done.stderr


def test_with_log_json_the_web_server_logs_json_lines_only_uvicorn_included(
    tmp_path: Path,
) -> None:
    settings = get_settings(data_dir=tmp_path)
    upgrade_to_head(make_engine(settings))
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    environment |= {"PAPERBOY_DATA_DIR": str(tmp_path), "PAPERBOY_LOG_JSON": "true"}
    environment |= {"PAPERBOY_SEARCH_PRELOAD": "false"}  # no model to load: a fast start
    port = free_port()
    command = ["-m", "uvicorn", "app.web.app:create_app", "--factory", "--port", str(port)]
    server = subprocess.Popen(
        [sys.executable, *command],
        env=environment,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # uvicorn logs access to stdout
    )
    try:
        assert wait_for(f"http://127.0.0.1:{port}/healthz") == 200
    finally:
        server.send_signal(signal.SIGINT)
        output, _ = server.communicate(timeout=30)
    entries = [json.loads(line) for line in output.splitlines() if line.strip()]
    assert any(entry["logger"] == "uvicorn.access" for entry in entries)
    assert any("Started server process" in entry["message"] for entry in entries)


def wait_for(url: str, seconds: float = 30) -> int:
    deadline = time.monotonic() + seconds
    while True:
        try:
            return httpx.get(url).status_code
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
