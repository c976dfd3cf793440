"""Log set-up of the long-running processes: with ``PAPERBOY_LOG_JSON`` no library's progress
bar reaches the logs (run as a real process: logging is process-wide)."""

import os
import subprocess
import sys

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
