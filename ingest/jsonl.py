"""Read a JSON-lines file, plain or gzip (told apart by its first bytes, not its name)."""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

GZIP_MAGIC = b"\x1f\x8b"


class TruncatedFileError(RuntimeError):
    """The file ends in the middle of its compressed stream, or is otherwise unreadable."""


@dataclass(frozen=True, slots=True)
class Line:
    number: int
    value: object | None  # the decoded JSON value; None when ``error`` is set
    error: str | None = None


@contextmanager
def open_lines(path: Path) -> Iterator[tuple[Iterator[tuple[int, bytes]], BinaryIO]]:
    """Yield the file's non-blank lines with their numbers, and the raw file (for progress)."""
    with path.open("rb") as raw:
        compressed = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        stream = gzip.GzipFile(fileobj=raw) if compressed else raw
        yield _numbered_lines(stream), raw


def _numbered_lines(stream: BinaryIO | gzip.GzipFile) -> Iterator[tuple[int, bytes]]:
    number = 0
    try:
        for number, text in enumerate(stream, start=1):
            if text.strip():
                yield number, text
    except (EOFError, OSError, zlib.error) as error:
        raise TruncatedFileError(
            f"the file is cut short or corrupt after line {number}: {error}"
        ) from error


def decode_line(number: int, text: bytes) -> Line:
    try:
        return Line(number, json.loads(text))
    except UnicodeDecodeError:
        return Line(number, None, "not UTF-8 text")
    except ValueError as error:
        return Line(number, None, f"not valid JSON ({error})")
