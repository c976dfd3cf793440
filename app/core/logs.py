"""Logging set-up for the long-running processes: plain lines, or one JSON object per line.

With ``PAPERBOY_LOG_JSON`` every line of the process is JSON: the web server's own loggers
(uvicorn's, set up before the app) get the same formatter, and progress bars are off (tqdm's
and Hugging Face's, which would otherwise write carriage-return lines between the entries).
Paperboy's own bars show only on a terminal anyway. A JSON line carries the exception
of its record (type, message, traceback), the id of the web request it was logged in, and a
crash nothing caught is logged as such a line too.

Credentials are kept out of logs: the value of every ``token`` query parameter is replaced
(:func:`redact`, installed by :func:`configure_logging`). Signed links (confirm, sign-in,
preferences, export, feedback, unsubscribe) and the private feed carry their credential as
``?token=``, and nowhere else in a URL; uvicorn's access log writes each request line whole. A
parameter counts as ``token`` as the app reads it: its name percent-decoded (``%74oken`` is
``token`` to the app, so it is to the redaction).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
from collections.abc import Mapping
from contextvars import ContextVar
from datetime import UTC, datetime
from types import TracebackType
from urllib.parse import unquote_plus

from app.core.config import Settings

HANDLER_NAME = "paperboy"
# The loggers uvicorn gives handlers of their own (they do not propagate to the root).
SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")
# Read by tqdm for every bar whose caller left ``disable`` unset, and by huggingface_hub.
PROGRESS_BARS_OFF = {"TQDM_DISABLE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1"}
# The web request being served (set by app.web.middleware.request_ids); None outside a request.
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
            entry["stack"] = redact(self.formatStack(record.stack_info))
        return json.dumps(entry, default=str)

    def _exception(self, record: logging.LogRecord, error: BaseException) -> dict[str, str]:
        # The redaction filter leaves the redacted traceback in ``exc_text``; a record that
        # reached no such filter is redacted here, as is the message in every case.
        text = record.exc_text or self.formatException(record.exc_info)  # type: ignore[arg-type]
        return {
            "type": _type_name(type(error)),
            "message": redact(str(error)),
            "traceback": redact(text),
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
    redacted (:func:`redact`) either way."""
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
    install_redaction(handler)
    if not any(isinstance(present, TagRequest) for present in handler.filters):
        handler.addFilter(TagRequest())


def _redact_server_logs() -> None:
    # On the loggers, for what they log themselves; on their handlers, for what reaches them
    # from below (uvicorn's access logger has its own handler and does not propagate).
    for name in SERVER_LOGGERS:
        server_logger = logging.getLogger(name)
        install_redaction(server_logger)
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


# Credentials kept out of logs.

REDACTED = "[redacted]"
CREDENTIAL_PARAMETER = "token"
# One name=value pair of a query, wherever a URL sits in a line of text: it starts after "?"
# or "&"; its value ends where the app's ends ("&") or the URL does (whitespace, "#"). A quote
# that closed the URL in a message may go with it: better too much redacted than a token.
_QUERY_PAIR = re.compile(r"(?<=[?&])(?P<name>[^&=#\s]*)=(?P<value>[^&#\s]*)")
# Formats a traceback as the standard formatter does, so that it can be redacted first.
_TRACEBACKS = logging.Formatter()


def redact(text: str) -> str:
    """``text`` with the value of every ``token`` query parameter replaced (pure)."""
    return _QUERY_PAIR.sub(_redacted_pair, text)


def carries_token(query: str) -> bool:
    """Whether a query string holds a ``token`` parameter (pure)."""
    return redact(f"?{query}") != f"?{query}"


def _redacted_pair(pair: re.Match[str]) -> str:
    if unquote_plus(pair["name"]) != CREDENTIAL_PARAMETER or not pair["value"]:
        return pair.group()
    return f"{pair['name']}={REDACTED}"


class RedactCredentials(logging.Filter):
    """Rewrites a record before any handler formats it: its message, its arguments (uvicorn's
    access formatter reads them one by one), its ``fields``, its traceback and its stack."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        record.args = _redacted_args(record.args)
        fields = record.__dict__.get("fields")  # the JSON formatter's extra keys
        if isinstance(fields, dict):
            record.__dict__["fields"] = {name: _redacted(value) for name, value in fields.items()}
        if record.exc_info and not record.exc_text:
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
        # Another handler may have formatted the traceback already: it is cached, unredacted.
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        _flatten_if_still_tokened(record)
        return True


def _redacted(value: object) -> object:
    return redact(value) if isinstance(value, str) else value


Args = tuple[object, ...] | Mapping[str, object] | None


def _redacted_args(args: Args) -> Args:
    if isinstance(args, Mapping):
        return {name: _redacted(value) for name, value in args.items()}
    if isinstance(args, tuple):
        return tuple(_redacted(value) for value in args)
    return args


def _flatten_if_still_tokened(record: logging.LogRecord) -> None:
    """An argument that is not text (a URL object) shows its token only once formatted: then
    the record keeps the redacted message alone."""
    if not record.args:
        return
    try:
        message = record.getMessage()
    except (TypeError, ValueError):  # a broken call; the handler reports it as usual
        return
    if redact(message) != message:
        record.msg, record.args = redact(message), ()


def install_redaction(filterer: logging.Filterer) -> None:
    """Adds the redaction to a logger or handler, once."""
    if not any(isinstance(present, RedactCredentials) for present in filterer.filters):
        filterer.addFilter(RedactCredentials())
