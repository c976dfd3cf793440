"""Log set-up of the long-running processes: with ``PAPERBOY_LOG_JSON`` every line is JSON, no
library's progress bar reaches the logs, a job's report and a crash included (run as real
processes: logging is process-wide)."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import Database

# As in a job: the command line is loaded (it imports tqdm), logging is set up, then a job
# loads the model stack, whose downloads and shards show bars unless told not to.
PROBE = """
import app.cli.main
from app.core.config import get_settings
from app.core.logs import configure_logging
configure_logging(get_settings())
from huggingface_hub.utils import tqdm as hub_bar
for _ in hub_bar(range(3)):
    pass
"""


def test_json_logs_carry_no_progress_bar_of_the_model_libraries() -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERBOY_", "TQDM"))}
    environment.pop("HF_HUB_DISABLE_PROGRESS_BARS", None)
    environment["PAPERBOY_LOG_JSON"] = "true"
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=environment, capture_output=True, text=True, check=True
    )
    assert done.stderr == ""


def json_environment(database_url: str, data_dir: Path) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    return environment | {
        "PAPERBOY_LOG_JSON": "true",
        "PAPERBOY_DATABASE_URL": database_url,
        "PAPERBOY_DATA_DIR": str(data_dir),
    }


def json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]  # each line parses, or fails


def test_a_job_s_report_is_a_json_line_like_the_rest(database: Database, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "jobs", "run", "digests"],
        env=json_environment(database.settings.database_url, tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    entries = json_lines(done.stderr)
    [report] = [entry for entry in entries if entry["logger"] == "paperboy.report"]
    assert report["job"] == "digests"
    assert report["report"] == ["send-digests: no edition published yet; nothing to send"]
    assert report["message"] == "send-digests: no edition published yet; nothing to send"


# A crash nothing catches, in a process that logs JSON (as a scheduler's or a command's would).
CRASH = """
from app.core.config import get_settings
from app.core.logs import configure_logging
configure_logging(get_settings())
raise LookupError("the edition of /unsubscribe?token=secret-value went missing")
"""


def test_a_crash_nothing_caught_is_one_json_line_with_its_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CRASH],
        env=json_environment("", tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    [crash] = json_lines(done.stderr)
    assert crash["level"] == "critical"
    assert crash["message"] == "crashed: LookupError"
    assert crash["exception"] == {
        "type": "LookupError",
        "message": "the edition of /unsubscribe?token=[redacted] went missing",
        "traceback": (
            "Traceback (most recent call last):\n"
            '  File "<string>", line 5, in <module>\n'
            "LookupError: the edition of /unsubscribe?token=[redacted] went missing"
        ),
    }
