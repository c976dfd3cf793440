"""Hugging Face Daily Papers signals, from a raw recorded API response."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

import pytest
from sqlalchemy import select

from app.core.models import HfDailyPaper
from ingest.errors import FeedFormatError
from ingest.hf_daily import (
    MAX_AUTHORS,
    MAX_KEYWORDS,
    MAX_NAME,
    MAX_TEXT,
    DailyPage,
    parse_daily_page,
)
from ingest.live import Context, ingest_hf
from ingest.paper_writer import store_records
from ingest.records import PaperRecord
from tests.conftest import FIXTURES, Database
from tests.ingest.hf_pages import without_thumbnails
from tests.ingest.recorded_server import RecordedServer, Reply

DAY = date(2025, 11, 3)
RESPONSE = without_thumbnails((FIXTURES / "hf_daily" / "daily_papers_2025-11-03.json").read_bytes())
EMPTY_API_RESULT = (FIXTURES / "arxiv_api" / "id_0000.0000_s0_m100_8b51d9633a68.xml").read_bytes()
JSON = {"Content-Type": "application/json"}


def store_papers_of_the_page(database: Database, leave_out: str | None = None) -> None:
    """Store the page's papers from its own metadata, as if arXiv ingest had run before."""
    items = json.loads(RESPONSE)
    records = [_record(item["paper"]) for item in items if item["paper"]["id"] != leave_out]
    with database.sessions.begin() as session:
        store_records(session, records)


def _record(paper: dict[str, Any]) -> PaperRecord:
    authors = tuple(author["name"] for author in paper["authors"])
    return PaperRecord(
        arxiv_id=paper["id"],
        version=1,
        title=paper["title"],
        abstract=paper["summary"],
        authors=authors,
        categories=(),
    )


def parse_edited(edit: Callable[[dict[str, Any], dict[str, Any]], None]) -> DailyPage:
    """The recorded page with its first item (2510.27492) changed by ``edit(item, paper)``."""
    items = json.loads(RESPONSE)
    edit(items[0], items[0]["paper"])
    return parse_daily_page(json.dumps(items).encode(), DAY)


def signals(database: Database) -> dict[str, HfDailyPaper]:
    with database.sessions() as session:
        return {row.arxiv_id: row for row in session.scalars(select(HfDailyPaper))}


def test_the_signals_of_a_paper_read_field_by_field() -> None:
    page = parse_daily_page(RESPONSE, DAY)
    assert len(page.signals) == 15
    assert page.rejected == []
    first = page.signals[0]
    assert first.arxiv_id == "2510.27492"
    assert first.daily_date == DAY
    assert (first.upvotes, first.num_comments) == (37, 4)
    assert (first.github_repo, first.github_stars) == (
        "https://github.com/ThinkMorph/ThinkMorph",
        5,
    )
    assert first.submitted_on_daily_at == datetime(2025, 11, 3, 0, 17, 1, 674000, tzinfo=UTC)
    assert first.published_at == datetime(2025, 10, 30, 17, 51, 38, tzinfo=UTC)
    assert len(first.authors) == 8
    assert first.authors[:3] == ("Jiawei Gu", "Yunzhuo Hao", "Huichen Will Wang")


def test_a_days_signals_are_stored_once_however_often_the_day_is_read(
    context: Context, database: Database, server: RecordedServer
) -> None:
    store_papers_of_the_page(database)
    server.add("/api/daily_papers", {"date": "2025-11-03"}, Reply(200, RESPONSE, JSON))
    (report,) = ingest_hf(context, DAY)
    (again,) = ingest_hf(context, DAY)
    assert (report.status, report.counts["read"], again.status) == ("ok", 15, "ok")
    stored = signals(database)
    assert len(stored) == 15
    assert (stored["2510.27492"].upvotes, stored["2510.27492"].github_stars) == (37, 5)
    seed = stored["2510.25602"]
    assert (seed.submitted_by, seed.organization_name, seed.organization_fullname) == (
        "ChenMnZ",
        "ByteDance-Seed",
        "ByteDance Seed",
    )
    assert stored["2510.27492"].project_page == "https://thinkmorph.github.io/"
    authors = stored["2510.27492"].authors
    assert authors is not None and authors[:2] == ["Jiawei Gu", "Yunzhuo Hao"]
    assert all(arrival.path == "/api/daily_papers" for arrival in server.arrivals)


def test_a_later_read_of_the_day_refreshes_the_counts_and_erases_nothing_it_lacks(
    context: Context, database: Database, server: RecordedServer
) -> None:
    store_papers_of_the_page(database)
    items = json.loads(RESPONSE)
    items[0]["paper"]["upvotes"] = 41
    del (
        items[0]["paper"]["projectPage"],
        items[1]["organization"],
        items[1]["paper"]["organization"],
    )
    later = Reply(200, json.dumps(items).encode(), JSON)
    server.add("/api/daily_papers", {"date": "2025-11-03"}, Reply(200, RESPONSE, JSON), later)
    ingest_hf(context, DAY)
    ingest_hf(context, DAY)
    think, seed = signals(database)["2510.27492"], signals(database)["2510.25602"]
    assert (think.upvotes, think.project_page) == (41, "https://thinkmorph.github.io/")
    assert seed.organization_name == "ByteDance-Seed"


def test_a_paper_not_yet_stored_is_looked_up_on_arxiv(
    context: Context, database: Database, server: RecordedServer
) -> None:
    store_papers_of_the_page(database, leave_out="2510.27492")
    server.add("/api/daily_papers", {"date": "2025-11-03"}, Reply(200, RESPONSE, JSON))
    # No recording of this paper's API entry exists; the real empty result stands in for it.
    lookup = {
        "search_query": "",
        "id_list": "2510.27492",
        "sortBy": "relevance",
        "sortOrder": "descending",
        "start": "0",
        "max_results": "100",
    }
    server.add("/api/query", lookup, Reply(200, EMPTY_API_RESULT))
    (report,) = ingest_hf(context, DAY)
    assert [arrival.path for arrival in server.arrivals] == ["/api/daily_papers", "/api/query"]
    assert report.status == "partial"
    assert "did not return 2510.27492" in str(report.error)
    assert "2510.27492" in signals(database)  # the signal is kept all the same


def test_the_project_page_submitter_and_organization_are_read() -> None:
    page = {signal.arxiv_id: signal for signal in parse_daily_page(RESPONSE, DAY).signals}
    think, seed = page["2510.27492"], page["2510.25602"]
    assert (think.project_page, think.submitted_by) == ("https://thinkmorph.github.io/", "taesiri")
    assert (think.organization_name, think.organization_fullname) == (None, None)
    assert (seed.project_page, seed.submitted_by) == (None, "ChenMnZ")
    assert (seed.organization_name, seed.organization_fullname) == (
        "ByteDance-Seed",
        "ByteDance Seed",
    )
    assert page["2510.24411"].organization_fullname == "NLP Group of The University of Hong Kong"
    assert sum(signal.project_page is not None for signal in page.values()) == 5


@pytest.mark.parametrize(
    "link",
    [
        "javascript:alert(document.cookie)",
        " JavaScript:alert(1)",
        "java\u0000script:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "//evil.example/page",
        "https://",
        "ftp://x.org",
        "thinkmorph.github.io",
        "",
        42,
        ["https://thinkmorph.github.io/"],
        {"url": "https://x.org"},
    ],
    ids=[
        "javascript",
        "spaced-upper",
        "nul-split",
        "data",
        "scheme-relative",
        "no-host",
        "ftp",
        "bare-host",
        "empty",
        "number",
        "list",
        "object",
    ],
)
def test_a_project_page_that_is_not_a_web_link_is_dropped_and_the_signal_kept(
    link: object,
) -> None:
    def set_links(_item: dict[str, Any], paper: dict[str, Any]) -> None:
        paper["projectPage"] = paper["githubRepo"] = link

    page = parse_edited(set_links)
    first = page.signals[0]
    assert (first.arxiv_id, first.upvotes, page.rejected) == ("2510.27492", 37, [])
    assert (first.project_page, first.github_repo) == (None, None)


def test_a_project_page_keeps_its_own_spelling_once_cleaned() -> None:
    def set_link(_item: dict[str, Any], paper: dict[str, Any]) -> None:
        paper["projectPage"] = " HTTPS://ThinkMorph.github.io/\u0007demo "

    (first, *_) = parse_edited(set_link).signals
    assert first.project_page == "HTTPS://ThinkMorph.github.io/demo"


def test_the_submitter_falls_back_to_the_items_submitter_and_the_organization_to_the_papers() -> (
    None
):
    def move(item: dict[str, Any], paper: dict[str, Any]) -> None:
        paper["submittedOnDailyBy"] = {"user": 7}
        item["submittedBy"] = {"name": "ChenMnZ"}
        paper["organization"] = {"name": "ByteDance-Seed", "fullname": "ByteDance Seed"}
        item["organization"] = "not an object"

    (first, *_) = parse_edited(move).signals
    assert (first.submitted_by, first.organization_name) == ("ChenMnZ", "ByteDance-Seed")
    assert first.organization_fullname == "ByteDance Seed"


@pytest.mark.parametrize(
    ("paper_fields", "item_fields"),
    [
        ({"submittedOnDailyBy": "taesiri", "organization": ["x"]}, {}),
        (
            {"submittedOnDailyBy": {"user": ["taesiri"]}},
            {"submittedBy": {"name": 5}, "organization": {"fullname": {}}},
        ),
        ({"submittedOnDailyBy": {"user": None}}, {"submittedBy": None}),
        ({"submittedOnDailyBy": {"user": " \u0000 "}}, {}),
    ],
    ids=["strings-not-objects", "wrong-field-types", "null-user", "blank-user"],
)
def test_submitter_and_organization_of_the_wrong_type_are_dropped(
    paper_fields: dict[str, Any], item_fields: dict[str, Any]
) -> None:
    def edit(item: dict[str, Any], paper: dict[str, Any]) -> None:
        item.pop("submittedBy")
        paper.update(paper_fields)
        item.update(item_fields)

    page = parse_edited(edit)
    first = page.signals[0]
    assert page.rejected == []
    assert (first.submitted_by, first.organization_name, first.organization_fullname) == (
        None,
        None,
        None,
    )


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "submittedOnDailyBy",
            {"user": "u" * (MAX_NAME + 1)},
            f"submittedBy: {MAX_NAME + 1} characters, over the limit of {MAX_NAME}",
        ),
        (
            "organization",
            {"name": "o" * (MAX_NAME + 1)},
            f"organization name: {MAX_NAME + 1} characters, over the limit of {MAX_NAME}",
        ),
        (
            "organization",
            {"fullname": "f" * (MAX_TEXT + 1)},
            f"organization fullname: {MAX_TEXT + 1:,} characters, over the limit of {MAX_TEXT:,}",
        ),
        (
            "projectPage",
            "https://x.org/" + "p" * MAX_TEXT,
            f"projectPage: {MAX_TEXT + 14:,} characters, over the limit of {MAX_TEXT:,}",
        ),
    ],
    ids=["submitter", "organization-slug", "organization-name", "project-page"],
)
def test_an_oversized_field_rejects_its_signal_with_the_reason_and_the_rest_are_kept(
    field: str, value: object, message: str
) -> None:
    page = parse_edited(lambda _item, paper: paper.update({field: value}))
    assert (len(page.signals), page.rejected) == (14, [f"item 1: {message}"])


@pytest.mark.parametrize(
    "slug",
    [
        "/..",
        "..",
        "ByteDance-Seed/..",
        "a/b",
        "x..y",
        "-seed",
        "seed.",
        "a b",
        "a?b",
        "%2e%2e",
        "\u200b",
    ],
    ids=ascii,
)
def test_an_organization_slug_that_would_make_a_broken_link_rejects_its_signal(
    slug: str,
) -> None:
    page = parse_edited(lambda item, _paper: item.update(organization={"name": slug}))
    assert len(page.signals) == 14
    assert page.rejected == [
        f"item 1: organization name: {slug.strip()!r} is not a Hugging Face name"
    ]


def test_a_day_read_again_with_a_broken_slug_keeps_what_was_stored_and_says_why(
    context: Context, database: Database, server: RecordedServer
) -> None:
    store_papers_of_the_page(database)
    items = json.loads(RESPONSE)
    seed = next(i for i, item in enumerate(items) if item["paper"]["id"] == "2510.25602")
    items[seed]["organization"] = {"name": "ByteDance-Seed/..", "fullname": "ByteDance Seed"}
    items[seed]["paper"]["upvotes"] = 999
    broken = Reply(200, json.dumps(items).encode(), JSON)
    server.add("/api/daily_papers", {"date": "2025-11-03"}, Reply(200, RESPONSE, JSON), broken)
    ingest_hf(context, DAY)
    before = signals(database)["2510.25602"].upvotes
    (report,) = ingest_hf(context, DAY)
    assert (report.status, report.counts["read"], report.counts["rejected"]) == ("partial", 14, 1)
    assert (
        report.error is not None
        and "'ByteDance-Seed/..' is not a Hugging Face name" in report.error
    )
    stored = signals(database)
    assert len(stored) == 15
    assert (stored["2510.25602"].organization_name, stored["2510.25602"].upvotes) == (
        "ByteDance-Seed",
        before,
    )


def test_a_count_that_cannot_be_real_is_dropped() -> None:
    def inflate(item: dict[str, Any], paper: dict[str, Any]) -> None:
        paper.update(upvotes=2**31, githubStars=-5)
        item["numComments"] = True

    (first, *_) = parse_edited(inflate).signals
    assert (first.upvotes, first.github_stars, first.num_comments) == (0, None, None)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<html>rate limited</html>", "not JSON"),
        (b'{"error": "x"}', "expected a list"),
        (b'[{"paper": {"id": "2510.27', "not JSON"),
        (b"\xff\xfe[]", "not JSON"),
    ],
    ids=["html", "object", "truncated", "not-utf8"],
)
def test_a_response_that_is_not_a_list_of_papers_is_a_clear_error(
    body: bytes, message: str
) -> None:
    with pytest.raises(FeedFormatError, match=message):
        parse_daily_page(body, DAY)


def test_an_item_without_a_paper_id_is_rejected_and_the_rest_kept() -> None:
    items = json.loads(RESPONSE)
    del items[1]["paper"]["id"]
    page = parse_daily_page(json.dumps(items).encode(), DAY)
    assert (len(page.signals), page.rejected) == (14, ["item 2: no paper id"])


def test_control_characters_and_lone_surrogates_in_signals_are_not_stored(
    context: Context, database: Database, server: RecordedServer
) -> None:
    items = json.loads(RESPONSE)
    paper = items[0]["paper"]
    paper["ai_keywords"] = ["multimodal\u0000 reasoning", "\ud800", "think\u001bing"]
    paper["githubRepo"] = "https://github.com/ThinkMorph/\u0007ThinkMorph"
    store_papers_of_the_page(database)
    server.add("/api/daily_papers", {"date": "2025-11-03"}, Reply(200, json.dumps(items).encode()))
    (report,) = ingest_hf(context, DAY)
    assert report.status == "ok"
    stored = signals(database)["2510.27492"]
    assert stored.ai_keywords == ["multimodal reasoning", "thinking"]
    assert stored.github_repo == "https://github.com/ThinkMorph/ThinkMorph"


def test_a_signal_with_too_many_keywords_is_rejected_and_the_rest_kept() -> None:
    items = json.loads(RESPONSE)
    items[1]["paper"]["ai_keywords"] = ["word"] * (MAX_KEYWORDS + 1)
    page = parse_daily_page(json.dumps(items).encode(), DAY)
    assert len(page.signals) == 14
    assert page.rejected == [
        f"item 2: ai_keywords: {MAX_KEYWORDS + 1} keywords, over the limit of {MAX_KEYWORDS}"
    ]


def test_a_failed_fetch_is_logged_as_failed(
    context: Context, database: Database, server: RecordedServer
) -> None:
    server.add("/api/daily_papers", {"date": "2025-11-03"}, Reply(500, b"oops"))
    (report,) = ingest_hf(context, DAY)
    assert report.status == "failed"
    assert "HTTP 500" in str(report.error)
    assert signals(database) == {}


def test_author_names_that_are_not_text_are_dropped_and_a_list_too_long_rejects_the_paper() -> None:
    items = json.loads(RESPONSE)
    items[0]["paper"]["authors"] = [{"name": "Ada Lovelace"}, {"name": 7}, "Charles", {}]
    items[1]["paper"]["authors"] = [{"name": f"Author {n}"} for n in range(MAX_AUTHORS + 1)]
    page = parse_daily_page(json.dumps(items).encode(), DAY)
    assert page.signals[0].authors == ("Ada Lovelace",)
    assert page.rejected == [
        f"item 2: authors: {MAX_AUTHORS + 1} names, over the limit of {MAX_AUTHORS}"
    ]
