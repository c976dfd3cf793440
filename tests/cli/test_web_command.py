"""``paperboy web``: checked once in the parent, it exits 1 on bad settings or a database
that turns it away whatever its worker count, instead of uvicorn respawning refusing workers;
with good ones, its workers serve."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from app.core.config import get_settings
from app.core.db import make_engine
from app.core.schema import upgrade_to_head
from tests.app.test_main import wait_for
from tests.servers import free_port


def _environment(data_dir: Path, **settings: str) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    environment |= {"PAPERBOY_DATA_DIR": str(data_dir), "PAPERBOY_SEARCH_PRELOAD": "false"}
    return environment | {f"PAPERBOY_{name.upper()}": value for name, value in settings.items()}


def _paperboy_web(environment: dict[str, str], port: int) -> list[str]:
    return [sys.executable, "-m", "app.cli.main", "web", "--workers", "2", "--port", str(port)]


def _refused(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _paperboy_web(environment, free_port()),
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_bad_settings_stop_the_command_before_any_worker_starts(tmp_path: Path) -> None:
    done = _refused(_environment(tmp_path, env="production"))
    assert done.returncode == 1
    assert "paperboy web: refused: PAPERBOY_SECRET_KEY" in done.stderr
    assert "Traceback" not in done.stderr
    assert "Started parent process" not in done.stderr + done.stdout


def test_a_database_that_turns_it_away_stops_the_command(tmp_path: Path) -> None:
    closed = f"postgresql+psycopg://paperboy:wrong@127.0.0.1:{free_port()}/paperboy"
    done = _refused(_environment(tmp_path, database_url=closed))
    assert done.returncode == 1
    [line] = [line for line in done.stderr.splitlines() if line.startswith("paperboy web:")]
    assert "database" in line
    assert "Started parent process" not in done.stderr + done.stdout


def test_with_good_settings_two_workers_serve(tmp_path: Path) -> None:
    upgrade_to_head(make_engine(get_settings(data_dir=tmp_path)))
    environment, port = _environment(tmp_path), free_port()
    log = tmp_path / "web.log"
    with log.open("w") as output:
        server = subprocess.Popen(
            _paperboy_web(environment, port),
            env=environment,
            text=True,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            assert wait_for(f"http://127.0.0.1:{port}/healthz") == 200
            # Each worker says so as it starts; the second may start after the first answers.
            _wait_until(lambda: log.read_text().count("Started server process") == 2)
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=60)
    assert server.returncode == 0, log.read_text()


def _wait_until(check: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"not so after {seconds} s"
        time.sleep(0.1)
