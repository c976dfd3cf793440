"""The errors a live source raises: each says what failed, in words fit for the ingest log."""

from __future__ import annotations


class SourceError(Exception):
    """A source could not be read; what was stored before it stays stored."""


class FetchError(SourceError):
    """The request failed: a refused status, a timeout or a broken connection, after retries."""

    def __init__(self, message: str, status: int | None = None, body: bytes = b"") -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class ResponseTooLargeError(FetchError):
    """The response is larger than ``PAPERBOY_INGEST_MAX_RESPONSE_BYTES``; nothing of it is used."""


class FeedFormatError(SourceError):
    """The response is not the document it should be (malformed, unsafe, an HTML page)."""


class UnsafeXmlError(FeedFormatError):
    """The XML declares entities (external ones, or an expansion bomb): refused unexpanded."""
