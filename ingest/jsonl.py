"""Read a JSON-lines file, plain or gzip (told apart by its first bytes, not its name).

A bulk import reads hundreds of megabytes, so both steps use compiled libraries faster than
the standard library's: ISA-L for gzip (``isal``) and ``orjson`` for JSON, each with the same
results.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, NamedTuple, cast

import orjson
from isal import igzip, igzip_lib

GZIP_MAGIC = b"\x1f\x8b"
# What reading a cut or corrupt stream raises (isal's stub calls its error class an instance).
_DAMAGED_STREAM_ERRORS = (EOFError, OSError, zlib.error, cast(type[Exception], igzip_lib.IsalError))


class TruncatedFileError(RuntimeError):
    """The file ends in the middle of its compressed stream, or is otherwise unreadable."""


class Line(NamedTuple):  # one per line of a bulk file: a tuple is the cheapest to make
    number: int
    value: object | None  # the decoded JSON value; None when ``error`` is set
    error: str | None = None


@contextmanager
def open_lines(path: Path) -> Iterator[tuple[Iterator[tuple[int, bytes]], BinaryIO]]:
    """Yield the file's non-blank lines with their numbers, and the raw file (for progress)."""
    with path.open("rb") as raw:
        compressed = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        # isal's annotations leave the constructor untyped.
        stream = igzip.IGzipFile(fileobj=raw) if compressed else raw  # type: ignore[no-untyped-call]
        yield _numbered_lines(stream), raw


def _numbered_lines(stream: BinaryIO | igzip.IGzipFile) -> Iterator[tuple[int, bytes]]:
    number = 0
    try:
        for number, text in enumerate(stream, start=1):
            if text.strip():
                yield number, text
    except _DAMAGED_STREAM_ERRORS as error:
        raise TruncatedFileError(
            f"the file is cut short or corrupt after line {number}: {error}"
        ) from error


def decode_line(number: int, text: bytes) -> Line:
    try:
        return Line(number, orjson.loads(text))
    except orjson.JSONDecodeError as error:
        if not _is_utf8(text):
            return Line(number, None, "not UTF-8 text")
        return Line(number, None, f"not valid JSON ({error})")


def _is_utf8(text: bytes) -> bool:
    try:
        text.decode()
    except UnicodeDecodeError:
        return False
    return True
