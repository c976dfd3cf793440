"""Logging set-up for the long-running processes: plain lines, or one JSON object per line.

With ``PAPERBOY_LOG_JSON`` every line of the process is JSON: the web server's own loggers
(uvicorn's, set up before the app) get the same formatter, and progress bars are off (tqdm's
and Hugging Face's, which would otherwise write carriage-return lines between the entries).
Paperboy's own bars show only on a terminal anyway. A JSON line carries the exception
of its record (type, message, traceback), the id of the web request it was logged in, and a
crash nothing caught is logged as such a line too.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from contextvars import ContextVar
from datetime import UTC, datetime
from types import TracebackType

from app.core import redaction
from app.core.config import Settings

HANDLER_NAME = "paperboy"
# The loggers uvicorn gives handlers of their own (they do not propagate to the root).
SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")
# Read by tqdm for every bar whose caller left ``disable`` unset, and by huggingface_hub.
PROGRESS_BARS_OFF = {"TQDM_DISABLE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1"}
# The web request being served (set by app.web.request_ids); None outside a request.
REQUEST_ID: ContextVar[str | None] = ContextVar("paperboy_request_id", default=None)
# Where a report goes when JSON logs are on: one entry, its lines in a list.
reports = logging.getLogger("paperboy.report")


class TagRequest(logging.Filter):
    """Puts the id of the request being served on each record, as ``request_id``. A filter
    on the handler, not the logger: it runs where the record is made, in the request's
    context, for every logger's records (uvicorn's access and error lines included)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if (request_id := REQUEST_ID.get()) is not None:
            record.request_id = request_id
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if (request_id := getattr(record, "request_id", None)) is not None:
            entry["request_id"] = request_id
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info and record.exc_info[1] is not None:
            entry["exception"] = self._exception(record, record.exc_info[1])
        if record.stack_info:
            entry["stack"] = redaction.redact(self.formatStack(record.stack_info))
        return json.dumps(entry, default=str)

    def _exception(self, record: logging.LogRecord, error: BaseException) -> dict[str, str]:
        # The redaction filter leaves the redacted traceback in ``exc_text``; a record that
        # reached no such filter is redacted here, as is the message in every case.
        text = record.exc_text or self.formatException(record.exc_info)  # type: ignore[arg-type]
        return {
            "type": _type_name(type(error)),
            "message": redaction.redact(str(error)),
            "traceback": redaction.redact(text),
        }


def _type_name(kind: type[BaseException]) -> str:
    return (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )


def json_logs_on() -> bool:
    """Whether this process logs JSON lines (``configure_logging`` with ``log_json``)."""
    return any(
        handler.get_name() == HANDLER_NAME and isinstance(handler.formatter, JsonFormatter)
        for handler in logging.getLogger().handlers
    )


def print_or_log_report(lines: list[str], **fields: object) -> None:
    """A report's lines: printed, or with JSON logs on one log entry (``report``: the lines),
    so that nothing but JSON reaches a log collector."""
    if not lines:
        return
    if not json_logs_on():
        print("\n".join(lines))  # noqa: T201 (the command's output)
        return
    reports.info("%s", "\n".join(lines), extra={"fields": fields | {"report": lines}})


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
    _install_filters(handler)
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


def _install_filters(handler: logging.Handler) -> None:
    redaction.install(handler)
    if not any(isinstance(present, TagRequest) for present in handler.filters):
        handler.addFilter(TagRequest())


def _redact_server_logs() -> None:
    # On the loggers, for what they log themselves; on their handlers, for what reaches them
    # from below (uvicorn's access logger has its own handler and does not propagate).
    for name in SERVER_LOGGERS:
        server_logger = logging.getLogger(name)
        redaction.install(server_logger)
        for handler in server_logger.handlers:
            _install_filters(handler)


def _json_everywhere() -> None:
    for name in SERVER_LOGGERS:
        for handler in logging.getLogger(name).handlers:
            handler.setFormatter(JsonFormatter())
    for variable, value in PROGRESS_BARS_OFF.items():
        os.environ.setdefault(variable, value)
    # A crash nothing caught would print Python's plain traceback between the JSON lines.
    sys.excepthook = _log_uncaught
    threading.excepthook = _log_uncaught_in_thread


def _log_uncaught(
    kind: type[BaseException], error: BaseException, trace: TracebackType | None
) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, error, trace)
        return
    logging.getLogger("paperboy").critical(
        "crashed: %s", kind.__name__, exc_info=(kind, error, trace)
    )


def _log_uncaught_in_thread(crash: threading.ExceptHookArgs) -> None:
    if crash.exc_value is None:
        return
    name = crash.thread.name if crash.thread else "a thread"
    logging.getLogger("paperboy").critical(
        "%s crashed: %s",
        name,
        crash.exc_type.__name__,
        exc_info=(crash.exc_type, crash.exc_value, crash.exc_traceback),
    )
