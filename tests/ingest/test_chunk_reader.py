"""The reader process: what the importer receives is what parsing the file in-process gives,
whether a chunk crosses in shared memory or, too large for it, through the queue."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.chunk_reader import ParsedChunk, parse_chunk, read_in_background
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
