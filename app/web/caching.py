"""Conditional GET for responses built from immutable editions: ETag, Last-Modified, 304.

The ETag is a hash of the body itself, so it is right for any response, and a client that
sends it back gets 304 without the body.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any

from fastapi import Request, Response
from pydantic_core import to_json

CACHE_CONTROL = "public, max-age=300"
# What its owner may hide at any moment (a person's page): a cache asks again each time, and
# its ETag makes the answer a 304 while nothing changed.
REVALIDATED = "public, no-cache"


def etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def not_modified(request: Request, tag: str, modified: datetime | None) -> bool:
    """RFC 9110: If-None-Match wins; If-Modified-Since only when it is absent."""
    match = request.headers.get("if-none-match")
    if match is not None:
        return tag in {part.strip().removeprefix("W/") for part in match.split(",")} or match == "*"
    since = request.headers.get("if-modified-since")
    if since is None or modified is None:
        return False
    try:
        stated = parsedate_to_datetime(since)
        # RFC 9110's asctime form carries no zone; every HTTP date is in GMT.
        stated = stated if stated.tzinfo else stated.replace(tzinfo=UTC)
        return modified.replace(microsecond=0) <= stated
    except (TypeError, ValueError):
        return False


@dataclass(frozen=True, slots=True)
class Rendered:
    """A response body with its ETag, computed once (kept in the memo)."""

    body: bytes
    tag: str


def rendered(body: bytes) -> Rendered:
    return Rendered(body, etag(body))


def cached(
    request: Request,
    body: bytes | Rendered,
    media_type: str,
    modified: datetime | None = None,
    cache_control: str = CACHE_CONTROL,
) -> Response:
    done = body if isinstance(body, Rendered) else rendered(body)
    body, tag = done.body, done.tag
    headers = {"ETag": tag, "Cache-Control": cache_control}
    if modified is not None:
        headers["Last-Modified"] = format_datetime(modified, usegmt=True)
    if not_modified(request, tag, modified):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def model_bytes(payload: Any) -> bytes:
    """JSON of API models (or lists and dicts of them), through each model's own serializer."""
    return to_json(payload)


def cached_json(request: Request, payload: Any, modified: datetime | None = None) -> Response:
    return cached(request, model_bytes(payload), "application/json", modified)
