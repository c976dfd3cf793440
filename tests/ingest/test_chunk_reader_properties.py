"""Import lines at random: each line is a record or a rejection with its reason, never a crash.

Lines are random bytes, real lines (the bundled sample's and Kaggle's snapshot's) damaged
byte-wise, or real records with a field removed or replaced by any JSON value.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.cli.demo.steps import SAMPLE
from ingest.bulk.chunk_reader import parse_chunk
from tests.conftest import FIXTURES
from tests.ingest.mutations import damaged

REAL_LINES = [
    *gzip.decompress(SAMPLE.read_bytes()).splitlines()[:20],
    *(FIXTURES / "kaggle_snapshot_head_50.jsonl").read_bytes().splitlines()[:20],
]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(2**63) | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=10,
)
OVERSIZED = st.sampled_from([10**4, 10**6]).map(lambda size: "é" * size) | st.sampled_from(
    [["A. Author"] * 10**4, ["cs.LG"] * 10**3]
)


@st.composite
def edited_records(draw: st.DrawFn) -> bytes:
    record: dict[str, Any] = json.loads(draw(st.sampled_from(REAL_LINES)))
    for _ in range(draw(st.integers(1, 3))):
        field = draw(st.sampled_from(sorted(record)))
        if draw(st.booleans()):
            del record[field]
            if not record:
                break
        else:
            record[field] = draw(JSON | OVERSIZED)
    return json.dumps(record).encode()


LINES = st.binary(max_size=200) | damaged(REAL_LINES) | edited_records()


@given(st.lists(LINES, min_size=1, max_size=5))
@settings(max_examples=300, deadline=None)
def test_every_line_is_a_record_or_a_rejection_with_its_reason(lines: list[bytes]) -> None:
    numbered = list(enumerate(lines, start=1))
    parsed = parse_chunk(numbered)
    assert parsed.read == len(lines)
    assert parsed.batch.size + len(parsed.rejections) == len(lines)
    assert all(rejection.reason for rejection in parsed.rejections)
    assert {r.line for r in parsed.rejections} <= set(range(1, len(lines) + 1))
