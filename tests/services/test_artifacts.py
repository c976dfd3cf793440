"""A truncated or corrupted model file stops a process as it starts, in one line: the web app,
the scheduler and the ``paperboy`` commands that use it, each run here as a real process."""

import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest

from app.core.config import get_settings
from app.services.artifacts import EVERY, artifact_problems
from ranking.embedder import resolve_model_path
from tests.conftest import PROJECT_ROOT, Database

TRENDING = PROJECT_ROOT / "ranking" / "trending" / "models" / "trending-2026-01-01.json"
TASTE_SPACE = PROJECT_ROOT / "digest" / "models" / "taste-space-2026-01-01.json"
PACKAGED_MODEL = Path(resolve_model_path(get_settings().embedding_model))
# What each long-running process logs once it is up.
WEB_READY = "Application startup complete"
SCHEDULER_READY = "SIGTERM or Ctrl-C stops it"


@dataclass(frozen=True)
class Run:
    """How a process ended: its exit code, or None when it came up (and was stopped)."""

    returncode: int | None
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stderr.splitlines()


def start(args: list[str], environment: dict[str, str], ready: str) -> Run:
    """Run ``python args`` until it exits or logs ``ready`` (then stop it)."""
    lines: list[str] = []
    up = threading.Event()

    def read(stream: IO[str]) -> None:
        for line in stream:
            lines.append(line)
            if ready in line:
                up.set()

    with subprocess.Popen(
        [sys.executable, *args],
        env=environment,
        cwd=environment["PAPERBOY_DATA_DIR"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stderr is not None
        reader = threading.Thread(target=read, args=(process.stderr,))
        reader.start()
        exited = _exit_or_ready(process, up)
        reader.join(timeout=30)
    return Run(process.returncode if exited else None, "".join(lines))


def _exit_or_ready(process: "subprocess.Popen[str]", up: threading.Event) -> bool:
    for _ in range(1200):  # 60 s
        if process.poll() is not None:
            return True
        if up.wait(0.05):
            process.terminate()
            process.wait(timeout=30)
            return False
    process.kill()
    process.wait(timeout=30)
    raise AssertionError("the process neither exited nor came up in 60 s")


def environment(database: Database, tmp_path: Path, **settings: str) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    url = database.engine.url.render_as_string(hide_password=False)
    base = {"PAPERBOY_DATA_DIR": str(tmp_path), "PAPERBOY_DATABASE_URL": url}
    return kept | base | {"PAPERBOY_OFFLINE": "true", "PAPERBOY_SEARCH_PRELOAD": "false"} | settings


def truncated_trending_model(tmp_path: Path) -> Path:
    path = tmp_path / "trending.json"
    text = TRENDING.read_bytes()
    path.write_bytes(text[: len(text) // 2])
    return path


def truncated_embedding_model(tmp_path: Path, name: str = "model.safetensors") -> Path:
    """A copy of the packaged model folder with one of its files cut to its first half."""
    folder = tmp_path / "model"
    shutil.copytree(PACKAGED_MODEL, folder, ignore=shutil.ignore_patterns("model.safetensors"))
    whole = (PACKAGED_MODEL / name).read_bytes()
    (folder / name).write_bytes(whole[: len(whole) // 2])
    return folder


def damaged_digest_package(tmp_path: Path) -> Path:
    """A folder to put first on PYTHONPATH: a copy of the ``digest`` package whose shipped
    taste space was cut short (a broken install or copy)."""
    root = tmp_path / "damaged"
    shutil.copytree(
        PROJECT_ROOT / "digest", root / "digest", ignore=shutil.ignore_patterns("__pycache__")
    )
    artifact = root / "digest" / "models" / TASTE_SPACE.name
    artifact.write_bytes(TASTE_SPACE.read_bytes()[:100_000])
    return root


def web(environment: dict[str, str]) -> Run:
    factory = ["-m", "uvicorn", "app.web.app:create_app", "--factory", "--port", "0"]
    return start(factory, environment, WEB_READY)


def refusal(run: Run, program: str, setting: str) -> str:
    """The one line of a refused start."""
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    [line] = [line for line in run.lines if line.startswith(f"{program}: refused: ")]
    assert line.startswith(f"{program}: refused: {setting}: ")
    return line


def test_the_shipped_artifacts_and_the_packaged_model_pass() -> None:
    assert artifact_problems(get_settings(), EVERY) == []


def test_the_web_app_refuses_to_start_with_a_truncated_embedding_model(
    database: Database, tmp_path: Path
) -> None:
    model = truncated_embedding_model(tmp_path)
    run = web(environment(database, tmp_path, PAPERBOY_EMBEDDING_MODEL=str(model)))
    line = refusal(run, "paperboy web", "PAPERBOY_EMBEDDING_MODEL")
    assert "model.safetensors" in line


@pytest.mark.parametrize("name", ["config.json", "tokenizer.json", "1_Pooling/config.json"])
def test_a_model_folder_with_a_truncated_configuration_is_refused(
    tmp_path: Path, name: str
) -> None:
    model = truncated_embedding_model(tmp_path, name)
    (model / "model.safetensors").symlink_to(PACKAGED_MODEL / "model.safetensors")
    [problem] = artifact_problems(get_settings(embedding_model=str(model)), EVERY)
    assert problem.setting == "PAPERBOY_EMBEDDING_MODEL"
    assert name in problem.message


def test_a_model_folder_that_is_not_there_is_refused(tmp_path: Path) -> None:
    settings = get_settings(embedding_model=str(tmp_path / "nowhere"))
    [problem] = artifact_problems(settings, EVERY)
    assert "no such model folder" in problem.message


def test_checking_the_embedding_model_loads_no_torch(tmp_path: Path) -> None:
    model = truncated_embedding_model(tmp_path)
    code = (
        "import sys; from app.core.config import get_settings; "
        "from app.services.artifacts import Artifact, artifact_problems; "
        f"problems = artifact_problems(get_settings(embedding_model={str(model)!r}), "
        "[Artifact.EMBEDDING_MODEL]); print(len(problems), 'torch' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["1", "False"]


def test_the_web_app_refuses_to_start_with_a_damaged_taste_space(
    database: Database, tmp_path: Path
) -> None:
    damaged = damaged_digest_package(tmp_path)
    run = web(environment(database, tmp_path, PYTHONPATH=str(damaged)))
    line = refusal(run, "paperboy web", "taste space")
    assert "reinstall" in line


def test_the_scheduler_refuses_to_start_with_a_truncated_trending_model(
    database: Database, tmp_path: Path
) -> None:
    path = truncated_trending_model(tmp_path)
    settings = environment(database, tmp_path, PAPERBOY_TRENDING_MODEL_PATH=str(path))
    run = start(["-m", "app.worker.scheduler"], settings, SCHEDULER_READY)
    line = refusal(run, "paperboy scheduler", "PAPERBOY_TRENDING_MODEL_PATH")
    assert str(path) in line


def test_the_scheduler_refuses_to_start_with_a_damaged_taste_space(
    database: Database, tmp_path: Path
) -> None:
    damaged = damaged_digest_package(tmp_path)
    settings = environment(database, tmp_path, PYTHONPATH=str(damaged))
    run = start(["-m", "app.worker.scheduler"], settings, SCHEDULER_READY)
    refusal(run, "paperboy scheduler", "taste space")


def test_run_daily_refuses_a_truncated_trending_model_before_any_work(
    database: Database, tmp_path: Path
) -> None:
    path = truncated_trending_model(tmp_path)
    settings = environment(database, tmp_path, PAPERBOY_TRENDING_MODEL_PATH=str(path))
    command = ["-m", "app.cli.main", "run-daily", "--date", "2025-12-19", "--skip-ingest"]
    run = start(command, settings, ready="never logged")
    refusal(run, "paperboy run-daily", "PAPERBOY_TRENDING_MODEL_PATH")
    assert len(run.lines) == 1


def test_a_trending_model_of_bytes_that_are_not_text_is_refused_in_words(
    database: Database, tmp_path: Path
) -> None:
    path = tmp_path / "trending.json"
    path.write_bytes(b"\xff\xfe\x00garbage" * 100)
    settings = environment(database, tmp_path, PAPERBOY_TRENDING_MODEL_PATH=str(path))
    run = start(["-m", "app.cli.main", "publish", "--date", "2025-12-19"], settings, "never")
    refusal(run, "paperboy publish", "PAPERBOY_TRENDING_MODEL_PATH")


def test_a_command_that_uses_no_model_runs_whatever_the_model_files(
    database: Database, tmp_path: Path
) -> None:
    path = truncated_trending_model(tmp_path)
    settings = environment(database, tmp_path, PAPERBOY_TRENDING_MODEL_PATH=str(path))
    run = start(["-m", "app.cli.main", "stats"], settings, "never")
    assert run.returncode == 0, run.stderr
    listing = start(["-m", "app.cli.main", "jobs", "list"], settings, "never")
    assert listing.returncode == 0, listing.stderr


def test_the_baseline_scorer_needs_no_trending_model(tmp_path: Path) -> None:
    path = truncated_trending_model(tmp_path)
    settings = get_settings(trending_model_path=path, scorer="baseline")
    assert artifact_problems(settings, EVERY) == []
