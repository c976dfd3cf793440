"""Credentials kept out of logs: the value of every ``token`` query parameter is replaced.

Signed links (confirm, sign-in, preferences, export, feedback, unsubscribe) and the private
feed carry their credential as ``?token=``, and nowhere else in a URL; uvicorn's access log
writes each request line whole. A parameter counts as ``token`` as the app reads it: its
name percent-decoded (``%74oken`` is ``token`` to the app, so it is to the redaction).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from urllib.parse import unquote_plus

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


def install(filterer: logging.Filterer) -> None:
    """Adds the redaction to a logger or handler, once."""
    if not any(isinstance(present, RedactCredentials) for present in filterer.filters):
        filterer.addFilter(RedactCredentials())
