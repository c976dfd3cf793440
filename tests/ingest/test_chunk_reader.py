"""The reader process: what the importer receives is what parsing the file in-process gives,
whether a chunk crosses in shared memory or, too large for it, through the queue."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from ingest.bulk.chunk_reader import ParsedChunk, parse_chunk, read_in_background
from ingest.jsonl import open_lines
from tests.conftest import SAMPLE_PATH

CHUNK_SIZE = 100


def received(path: Path, slot_bytes: int) -> list[ParsedChunk]:
    with read_in_background(path, CHUNK_SIZE, slot_bytes) as chunks:
        return list(chunks)


@pytest.mark.parametrize("slot_bytes", [64 * 2**20, 1024], ids=["in shared memory", "too large"])
def test_the_importer_receives_every_record_as_parsed(slot_bytes: int) -> None:
    chunks = received(SAMPLE_PATH, slot_bytes)
    with open_lines(SAMPLE_PATH) as (lines, _):
        expected = parse_chunk(list(lines))
    assert sum(chunk.read for chunk in chunks) == expected.read == 491
    ids = [arxiv_id for chunk in chunks for arxiv_id in chunk.batch.arxiv_ids]
    assert ids == list(expected.batch.arxiv_ids)
    records = [item for chunk in chunks for item in chunk.batch.items()]
    assert records == list(expected.batch.items())
    assert [chunk.position for chunk in chunks] == sorted(chunk.position for chunk in chunks)


# An importer that reads one chunk, says which process is its reader, then waits to be killed.
IMPORTER = """
import multiprocessing, sys, time
from pathlib import Path
from ingest.bulk.chunk_reader import read_in_background
with read_in_background(Path(sys.argv[1]), 10) as chunks:
    next(chunks)
    print(*[child.pid for child in multiprocessing.active_children()], flush=True)
    time.sleep(60)
"""


def test_a_killed_importer_does_not_leave_its_reader_waiting_forever() -> None:
    # With chunks of 10 lines the reader soon fills every slot and waits for the importer.
    with subprocess.Popen(
        [sys.executable, "-c", IMPORTER, str(SAMPLE_PATH)], stdout=subprocess.PIPE, text=True
    ) as importer:
        assert importer.stdout is not None
        (reader,) = map(int, importer.stdout.readline().split())
        importer.kill()
    deadline = time.monotonic() + 10
    while is_running(reader) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not is_running(reader)


def is_running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie waits for whoever adopts it to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
