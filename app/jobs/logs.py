"""Logging set-up for the long-running processes: plain lines, or one JSON object per line."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from app.config import Settings

HANDLER_NAME = "paperboy"


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
    runner's or a host application's handlers are left alone)."""
    root = logging.getLogger()
    if any(handler.get_name() != HANDLER_NAME for handler in root.handlers):
        return
    handler = logging.StreamHandler()
    handler.set_name(HANDLER_NAME)
    if settings.log_json:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for previous in list(root.handlers):
        root.removeHandler(previous)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    # Migrations run in every command; their chatter is not news.
    logging.getLogger("alembic").setLevel(logging.WARNING)
