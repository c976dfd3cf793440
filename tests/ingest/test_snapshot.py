import json
from datetime import UTC, date, datetime

import pytest

from ingest.records import RecordError
from ingest.snapshot import parse_snapshot_record
from tests.conftest import FIXTURES


def kaggle_line(number: int) -> dict[str, object]:
    lines = (FIXTURES / "kaggle_snapshot_head_50.jsonl").read_text().splitlines()
    value: dict[str, object] = json.loads(lines[number])
    return value


LISTING = {
    "id": "2503.11742",
    "title": "Safe Vision-Language Models via\n Unsafe Weights Manipulation",
    "summary": "Vision-language models (VLMs) often inherit\nthe biases.",
    "authors": ["Moreno D'Incà", "Elia Peruzzo"],
    "categories": ["cs.CV", "I.4.8; I.2.10", "cs.AI", "68T45"],
    "comment": "Work in progress",
    "pdf": "https://arxiv.org/pdf/2503.11742",
    "abs": "https://arxiv.org/abs/2503.11742",
    "listing_dates": ["2025-03-18", "2025-03-19"],
}


def test_a_listing_record_gives_its_announcement_day_and_arxiv_categories_only() -> None:
    record = parse_snapshot_record(LISTING)
    assert record.arxiv_id == "2503.11742"
    assert record.version is None
    assert record.title == "Safe Vision-Language Models via Unsafe Weights Manipulation"
    assert record.abstract == "Vision-language models (VLMs) often inherit the biases."
    assert record.authors == ("Moreno D'Incà", "Elia Peruzzo")
    assert record.categories == ("cs.CV", "cs.AI")  # ACM and MSC classes dropped
    assert record.primary_category is None  # a listing does not say which is primary
    assert record.announced_on == date(2025, 3, 18)


def test_a_kaggle_record_gives_versions_dates_primary_category_and_decoded_names() -> None:
    record = parse_snapshot_record(kaggle_line(0))
    assert record.arxiv_id == "0704.0001"
    assert record.version == 2
    assert record.authors == ("C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan")
    assert record.primary_category == "hep-ph"
    assert record.journal_ref == "Phys.Rev.D76:013009,2007"
    assert record.doi == "10.1103/PhysRevD.76.013009"
    assert record.submitted_at == datetime(2007, 4, 2, 19, 18, 42, tzinfo=UTC)
    assert record.updated_at == datetime(2007, 7, 24, 20, 10, 27, tzinfo=UTC)
    assert record.announced_on is None


def test_kaggle_categories_keep_their_order_with_the_primary_first() -> None:
    record = parse_snapshot_record(kaggle_line(1))
    assert record.categories == ("math.CO", "cs.CG")
    assert record.primary_category == "math.CO"


def test_a_versioned_listing_id_keeps_its_version() -> None:
    assert parse_snapshot_record({**LISTING, "id": "2503.11742v3"}).version == 3


def test_hostile_html_in_a_title_is_kept_as_text_for_the_renderer_to_escape() -> None:
    title = '<script>alert("x")</script> Attention <b>is</b> all'
    assert parse_snapshot_record({**LISTING, "title": title}).title == title


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"id": None}, "missing id"),
        ({"id": "not-an-id"}, "not an arXiv identifier"),
        ({"id": "2503.11742v" + "9" * 4301}, "not an arXiv identifier"),
        ({"id": 2503.11742}, "missing id"),
        ({"title": ""}, "missing title"),
        ({"title": "   \n"}, "missing title"),
        ({"title": ["a", "list"]}, "title must be a string"),
        ({"authors": "Jane Doe, John Roe"}, "authors must be a list of strings"),
        ({"authors": [1, 2]}, "authors must be a list of strings"),
        ({"categories": "cs.CV"}, "categories must be a list of strings"),
        ({"listing_dates": ["yesterday"]}, "listing_dates must be YYYY-MM-DD"),
        ({"comment": 42}, "comment must be a string"),
    ],
)
def test_a_listing_record_of_the_wrong_shape_is_rejected_with_the_reason(
    change: dict[str, object], message: str
) -> None:
    with pytest.raises(RecordError, match=message):
        parse_snapshot_record({**LISTING, **change})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"versions": [{"version": "one", "created": "x"}]}, "bad versions entry"),
        (
            {
                "versions": [
                    {"version": "v" + "9" * 4301, "created": "Mon, 2 Apr 2007 19:18:42 GMT"}
                ]
            },
            "bad versions entry",
        ),
        ({"versions": [{"version": "v1", "created": "not a date"}]}, "bad date"),
        ({"versions": "v1"}, "versions must be a list"),
        ({"authors_parsed": [["only-last"]]}, "authors_parsed must be"),
        ({"categories": ["hep-ph"]}, "categories must be a string"),
    ],
)
def test_a_kaggle_record_of_the_wrong_shape_is_rejected_with_the_reason(
    change: dict[str, object], message: str
) -> None:
    with pytest.raises(RecordError, match=message):
        parse_snapshot_record({**kaggle_line(0), **change})


def test_a_json_value_that_is_not_an_object_is_rejected() -> None:
    with pytest.raises(RecordError, match="expected a JSON object, got list"):
        parse_snapshot_record([1, 2])
