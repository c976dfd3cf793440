"""Logging set-up for the long-running processes: plain lines, or one JSON object per line.

With ``PAPERBOY_LOG_JSON`` every line of the process is JSON: the web server's own loggers
(uvicorn's, set up before the app) get the same formatter, and progress bars are off (tqdm's
and Hugging Face's, which would otherwise write carriage-return lines between the entries).
Paperboy's own bars show only on a terminal anyway.
"""

from __future__ import annotations

import json
import logging
import os
from datetime import UTC, datetime

from app.core import redaction
from app.core.config import Settings

HANDLER_NAME = "paperboy"
# The loggers uvicorn gives handlers of their own (they do not propagate to the root).
SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")
# Read by tqdm for every bar whose caller left ``disable`` unset, and by huggingface_hub.
PROGRESS_BARS_OFF = {"TQDM_DISABLE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        return json.dumps(entry, default=str)


def configure_logging(settings: Settings) -> None:
    """Log to stderr at INFO, as text or JSON, unless logging is already set up (a test
    runner's or a host application's handlers are left alone). Credentials in URLs are
    redacted (``app.core.redaction``) either way."""
    _redact_server_logs()
    root = logging.getLogger()
    if any(handler.get_name() != HANDLER_NAME for handler in root.handlers):
        return
    handler = logging.StreamHandler()
    handler.set_name(HANDLER_NAME)
    redaction.install(handler)
    if settings.log_json:
        handler.setFormatter(JsonFormatter())
        _json_everywhere()
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for previous in list(root.handlers):
        root.removeHandler(previous)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    # Migrations run in every command; their chatter is not news.
    logging.getLogger("alembic").setLevel(logging.WARNING)


def _redact_server_logs() -> None:
    # On the loggers, for what they log themselves; on their handlers, for what reaches them
    # from below (uvicorn's access logger has its own handler and does not propagate).
    for name in SERVER_LOGGERS:
        server_logger = logging.getLogger(name)
        redaction.install(server_logger)
        for handler in server_logger.handlers:
            redaction.install(handler)


def _json_everywhere() -> None:
    for name in SERVER_LOGGERS:
        for handler in logging.getLogger(name).handlers:
            handler.setFormatter(JsonFormatter())
    for variable, value in PROGRESS_BARS_OFF.items():
        os.environ.setdefault(variable, value)
