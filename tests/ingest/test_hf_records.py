"""Hugging Face signals from flattened records, on a day of the recorded archive."""

from __future__ import annotations

import dataclasses
import gzip
import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from ingest.bulk.chunk_reader import Rejection
from ingest.errors import FeedFormatError
from ingest.hf_daily import MAX_NAME, HfSignal, parse_daily_page
from ingest.hf_records import parse_record, read_signal_file
from tests.conftest import FIXTURES

RECORDS = FIXTURES / "hf_daily" / "hf_daily_papers_2025-11-03.jsonl"
RESPONSE = (FIXTURES / "hf_daily" / "daily_papers_2025-11-03.json").read_bytes()
FIRST = json.loads(RECORDS.read_text(encoding="utf-8").splitlines()[1])  # 2510.25602


def test_the_records_of_a_day_read_field_by_field() -> None:
    read = read_signal_file(RECORDS)
    assert (len(read.signals), read.rejected, read.error) == (15, [], None)
    signals = {signal.arxiv_id: signal for signal in read.signals}
    seed, think = signals["2510.25602"], signals["2510.27492"]
    assert (seed.daily_date, seed.upvotes, seed.num_comments, seed.github_stars) == (
        date(2025, 11, 3),
        32,
        1,
        16,
    )
    assert (seed.submitted_by, seed.organization_name, seed.organization_fullname) == (
        "ChenMnZ",
        None,
        "ByteDance Seed",
    )
    assert (think.project_page, think.submitted_by) == ("https://thinkmorph.github.io/", "taesiri")
    assert think.submitted_on_daily_at == datetime(2025, 11, 3, 0, 17, 1, 674000, tzinfo=UTC)
    assert signals["2510.24411"].ai_keywords[:2] == ("Vision-Language Models", "VLMs")
    assert think.ai_keywords == ()  # null in the record


def _as_records_say(signal: HfSignal) -> HfSignal:
    """What the flattened records leave out of the raw page: the organization's slug, and the
    live page's summary, discussion and thumbnail (live ingest alone stores those)."""
    return dataclasses.replace(
        signal, organization_name=None, ai_summary=None, discussion_id=None, thumbnail_url=None
    )


def test_a_record_says_what_the_raw_page_of_its_day_says_but_live_only_fields() -> None:
    from_records = read_signal_file(RECORDS).signals
    from_page = parse_daily_page(RESPONSE, date(2025, 11, 3)).signals
    assert from_records == [_as_records_say(signal) for signal in from_page]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"arxiv_id": None}, "arxiv_id: missing or not a string"),
        ({"arxiv_id": "2510.256"}, "arxiv_id: "),
        ({"daily_date": "2025-13-01"}, "daily_date: not a YYYY-MM-DD date: '2025-13-01'"),
        ({"daily_date": 20251103}, "daily_date: not a YYYY-MM-DD date: '20251103'"),
        ({"upvotes": "32"}, "upvotes: not a count: '32'"),
        ({"upvotes": -1}, "upvotes: not a count: '-1'"),
        ({"upvotes": True}, "upvotes: not a count: 'True'"),
        ({"upvotes": 2**31}, "upvotes: not a count: '2147483648'"),
        ({"published_at": "yesterday"}, "bad timestamp 'yesterday'"),
        ({"ai_keywords": "reasoning"}, "ai_keywords must be a list"),
        (
            {"submitted_by": "u" * (MAX_NAME + 1)},
            f"submitted_by: {MAX_NAME + 1} characters, over the limit of {MAX_NAME}",
        ),
        ({"organization": "o" * 1_001}, "organization: 1,001 characters, over the limit of 1,000"),
    ],
    ids=[
        "no-id",
        "bad-id",
        "bad-date",
        "number-date",
        "string-count",
        "negative-count",
        "boolean-count",
        "oversized-count",
        "bad-time",
        "keywords-string",
        "long-submitter",
        "long-organization",
    ],
)
def test_a_record_that_cannot_be_a_signal_is_refused_with_the_reason(
    change: dict[str, object], message: str
) -> None:
    with pytest.raises(FeedFormatError, match=f"^{message}"):
        parse_record({**FIRST, **change})


@pytest.mark.parametrize("raw", [[FIRST], "2510.25602", None, 5], ids=str)
def test_a_value_that_is_not_an_object_is_refused(raw: object) -> None:
    with pytest.raises(FeedFormatError, match="expected a JSON object"):
        parse_record(raw)


def test_side_fields_of_the_wrong_kind_are_dropped_and_the_counts_kept() -> None:
    signal = parse_record(
        {
            **FIRST,
            "project_page": "javascript:alert(1)",
            "github_repo": "data:text/html,x",
            "github_stars": "16",
            "num_comments": 1.5,
            "organization": {"name": "ByteDance-Seed"},
            "submitted_by": ["ChenMnZ"],
            "ai_keywords": None,
            "submitted_on_daily_at": 5,
        }
    )
    assert (signal.arxiv_id, signal.upvotes) == ("2510.25602", 32)
    assert (signal.project_page, signal.github_repo, signal.github_stars) == (None, None, None)
    assert (signal.num_comments, signal.organization_fullname, signal.submitted_by) == (
        None,
        None,
        None,
    )
    assert (signal.ai_keywords, signal.submitted_on_daily_at) == ((), None)


def test_a_record_may_name_its_organizations_slug_as_the_raw_page_does() -> None:
    slugged = parse_record({**FIRST, "organization_slug": "ByteDance-Seed"})
    from_page = parse_daily_page(RESPONSE, date(2025, 11, 3)).signals
    same = next(signal for signal in from_page if signal.arxiv_id == "2510.25602")
    assert slugged == dataclasses.replace(_as_records_say(same), organization_name="ByteDance-Seed")
    with pytest.raises(FeedFormatError, match=r"organization_slug: '\.\./x' is not a Hugging Face"):
        parse_record({**FIRST, "organization_slug": "../x"})


def write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_bad_lines_are_listed_with_their_numbers_and_the_rest_read(tmp_path: Path) -> None:
    good = RECORDS.read_bytes().splitlines()
    path = write_lines(
        tmp_path / "records.jsonl",
        [
            good[0],
            b'{"daily_date": "2025-11-03", "arxiv_id"',
            b"",
            b"\xff\xfe{}",
            b"[1, 2]",
            json.dumps({**FIRST, "upvotes": None}).encode(),
            good[1],
        ],
    )
    read = read_signal_file(path)
    assert [signal.arxiv_id for signal in read.signals] == ["2510.27492", "2510.25602"]
    assert [rejection.line for rejection in read.rejected] == [2, 4, 5, 6]
    assert read.rejected[1:] == [
        Rejection(4, "not UTF-8 text"),
        Rejection(5, "expected a JSON object, got list"),
        Rejection(6, "upvotes: not a count: 'None'"),
    ]
    assert read.rejected[0].reason.startswith("not valid JSON")
    assert read.error is None


def test_a_file_cut_short_keeps_the_signals_read_before_the_cut(tmp_path: Path) -> None:
    whole = gzip.compress(RECORDS.read_bytes())
    path = tmp_path / "records.jsonl.gz"
    path.write_bytes(whole[: len(whole) * 2 // 3])
    read = read_signal_file(path)
    assert read.error is not None and "cut short or corrupt" in read.error
    assert 0 < len(read.signals) < 15


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    read = read_signal_file(tmp_path / "nowhere.jsonl")
    assert (read.signals, read.rejected, read.error) == ([], [], "no such file")
