"""Read and parse a bulk JSON-lines file in a separate process, chunk by chunk.

A first import spends about as long decompressing and parsing as storing, so a reader process
does the first half while the importing process stores: it decompresses the file, parses each
line and sends back chunks of prepared records through a queue of at most ``CHUNKS_IN_FLIGHT``
chunks, so memory stays constant. Records cross column by column
(:class:`ingest.bulk.batch_writer.PreparedBatch`): a few tuples of plain values pickle far
faster than an object per record. The reader pickles each chunk itself, straight into memory
shared with the importer (:class:`_Slots`), and only the slot's number goes through the queue.
"""

from __future__ import annotations

import contextlib
import gc
import mmap
import multiprocessing
import os
import pickle
import queue
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from multiprocessing.queues import Queue
from pathlib import Path
from typing import NamedTuple, TypeVar

from ingest.bulk.batch_writer import PreparedBatch, prepare_batch
from ingest.jsonl import TruncatedFileError, decode_line, open_lines
from ingest.records import PaperRecord, RecordError
from ingest.snapshot import parse_snapshot_record

CHUNKS_IN_FLIGHT = 4
FIRST_CHUNK_SIZE = 1000
# Room for one pickled chunk of listing records, with a wide margin. The memory is reserved,
# not used, until written. A larger chunk crosses through the queue instead.
SLOT_BYTES = 64 * 2**20
# The reader shares memory with the importer by inheriting it, so it is forked (the default on
# Linux until Python 3.14).
_FORK = multiprocessing.get_context("fork")
_Result = TypeVar("_Result")
# How long either process waits on a queue before checking that the other is still alive.
_LIVENESS_CHECK_SECONDS = 1.0


class ReaderError(RuntimeError):
    """The reader process failed for a reason other than a damaged file."""


class Rejection(NamedTuple):
    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


class ParsedChunk(NamedTuple):
    read: int
    batch: PreparedBatch
    rejections: list[Rejection]
    # Bytes of the file (compressed, if it is) consumed so far: for a progress bar.
    position: int


class _Failure(NamedTuple):
    message: str
    truncated: bool


def parse_chunk(lines: list[tuple[int, bytes]], position: int = 0) -> ParsedChunk:
    """Decode, parse and prepare raw numbered lines (pure)."""
    records: list[PaperRecord] = []
    rejections: list[Rejection] = []
    for number, text in lines:
        line = decode_line(number, text)
        try:
            if line.error is not None:
                raise RecordError(line.error)
            records.append(parse_snapshot_record(line.value))
        except RecordError as error:
            rejections.append(Rejection(number, str(error)))
    return ParsedChunk(
        read=len(lines), batch=prepare_batch(records), rejections=rejections, position=position
    )


@contextmanager
def read_in_background(
    path: Path, chunk_size: int, slot_bytes: int = SLOT_BYTES
) -> Iterator[Iterator[ParsedChunk]]:
    """Yield the file's parsed chunks in order, read by a separate process.

    A damaged file raises :class:`TruncatedFileError` after every chunk before the damage has
    been yielded. Leaving the block early stops the reader. ``slot_bytes``: the room for one
    pickled chunk in shared memory; a larger chunk crosses through the queue.
    """
    slots = _Slots(slot_bytes)
    chunks: Queue[_Message] = _FORK.Queue(CHUNKS_IN_FLIGHT)
    reader = _FORK.Process(
        target=_read_chunks,
        args=(path, chunk_size, chunks, slots),
        name="paperboy-reader",
        daemon=True,
    )
    reader.start()
    try:
        yield _received(chunks, slots, reader)
    finally:
        if reader.is_alive():
            reader.terminate()
        reader.join()
        chunks.close()
        slots.close()


class _Slots:
    """Memory shared with the forked reader: ``CHUNKS_IN_FLIGHT`` slots, each holding one
    pickled chunk, and a queue of the slots free to write. The reader pickles a chunk straight
    into a slot and the importer unpickles it in place: through the queue's pipe it was copied
    four times, and receiving it cost the importer a tenth of a first import. Anonymous memory:
    it goes with the processes, so a killed import leaves nothing behind."""

    def __init__(self, slot_bytes: int) -> None:
        self.importer = os.getpid()
        self.memory = [mmap.mmap(-1, slot_bytes) for _ in range(CHUNKS_IN_FLIGHT)]
        self.free: Queue[int] = _FORK.Queue()
        for number in range(CHUNKS_IN_FLIGHT):
            self.free.put(number)

    def put(self, chunk: ParsedChunk) -> _Slot | bytes:
        """Pickle ``chunk`` into a free slot (waiting for one), or into bytes if it won't fit."""
        number = _patiently(lambda timeout: self.free.get(timeout=timeout), self.importer)
        memory = self.memory[number]
        memory.seek(0)
        try:
            pickle.dump(chunk, memory, protocol=5)
        except ValueError:  # written past the slot's end
            self.free.put(number)
            return pickle.dumps(chunk, protocol=5)
        return _Slot(number, memory.tell())

    def take(self, slot: _Slot) -> ParsedChunk:
        """The chunk in ``slot``; the slot is free to write again afterwards."""
        with memoryview(self.memory[slot.number])[: slot.length] as data:
            chunk = _unpickled(data)
        self.free.put(slot.number)
        return chunk

    def close(self) -> None:
        self.free.close()
        for memory in self.memory:
            memory.close()


class _Slot(NamedTuple):
    number: int
    length: int


# What the reader sends: a chunk in a slot, or in the message itself when it would not fit;
# a failure; ``None`` at the end of the file.
_Message = _Slot | bytes | _Failure | None


def _received(chunks: Queue[_Message], slots: _Slots, reader: BaseProcess) -> Iterator[ParsedChunk]:
    while True:
        try:
            item = chunks.get(timeout=_LIVENESS_CHECK_SECONDS)
        except queue.Empty:
            if not reader.is_alive():
                raise ReaderError(
                    f"the reader process died (exit code {reader.exitcode})"
                ) from None
            continue
        if item is None:
            return
        if isinstance(item, _Failure):
            raise TruncatedFileError(item.message) if item.truncated else ReaderError(item.message)
        yield slots.take(item) if isinstance(item, _Slot) else _unpickled(item)


def _read_chunks(path: Path, chunk_size: int, chunks: Queue[_Message], slots: _Slots) -> None:
    """The reader process: parse every chunk of ``path`` into ``chunks``, then ``None``."""
    # Parsing makes no reference cycles, so reference counting frees everything; the cyclic
    # collector would only rescan each chunk's hundred thousand new containers (a tenth of the
    # reader's time) for nothing.
    gc.disable()
    try:
        with open_lines(path) as (lines, raw):
            for chunk in _line_chunks(lines, chunk_size):
                _send(chunks, slots.put(parse_chunk(chunk, raw.tell())), slots.importer)
        _send(chunks, None, slots.importer)
    except _ImporterGoneError:
        return
    except TruncatedFileError as error:
        _send(chunks, _Failure(str(error), truncated=True), slots.importer)
    except Exception as error:  # reported to the importer rather than lost with the process
        _send(
            chunks, _Failure(f"reading {path} failed: {error!r}", truncated=False), slots.importer
        )


class _ImporterGoneError(Exception):
    """The importing process ended without stopping its reader: it was killed."""


def _send(chunks: Queue[_Message], message: _Message, importer: int) -> None:
    with contextlib.suppress(_ImporterGoneError):
        _patiently(lambda timeout: chunks.put(message, timeout=timeout), importer)


def _patiently(operation: Callable[[float], _Result], importer: int) -> _Result:
    """A blocking queue operation, given up once the importer has gone: a killed importer
    cannot stop its reader, which would otherwise wait for it forever."""
    while True:
        try:
            return operation(_LIVENESS_CHECK_SECONDS)
        except (queue.Empty, queue.Full):
            if os.getppid() != importer:
                raise _ImporterGoneError from None


def _unpickled(data: bytes | memoryview) -> ParsedChunk:
    chunk: ParsedChunk = pickle.loads(data)  # noqa: S301 (our own reader process wrote it)
    return chunk


def _line_chunks(
    lines: Iterator[tuple[int, bytes]], size: int
) -> Iterator[list[tuple[int, bytes]]]:
    """Chunks of up to ``size`` lines; on damage, the lines read before it come first, then the
    error. The first chunks are smaller, growing to ``size``: the importer waits for the first
    one, and a small one reaches it sooner."""
    chunk: list[tuple[int, bytes]] = []
    target = min(size, FIRST_CHUNK_SIZE)
    try:
        for line in lines:
            chunk.append(line)
            if len(chunk) == target:
                yield chunk
                chunk, target = [], min(size, 2 * target)
    except TruncatedFileError:
        if chunk:
            yield chunk
        raise
    if chunk:
        yield chunk
