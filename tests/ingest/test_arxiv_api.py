"""The arXiv API through the ``arxiv`` package, against recorded responses of the real API."""

from __future__ import annotations

import itertools
import json
import re
from datetime import UTC, date, datetime

import pytest
from sqlalchemy import select

from app.core.models import Paper
from ingest import arxiv_api, live_writes
from ingest.arxiv_api import ApiQueryError
from ingest.errors import FeedFormatError, FetchError, UnsafeXmlError
from ingest.live import Context, enrich_day
from ingest.paper_writer import store_records
from ingest.records import LIMITS
from tests.conftest import FIXTURES, Database
from tests.ingest.hostile_xml import ENTITY_BOMB
from tests.ingest.recorded_server import RecordedServer, Reply
from tests.ingest.test_paper_writer import record

API = FIXTURES / "arxiv_api"
ATOM = {"Content-Type": "application/atom+xml; charset=utf-8"}


def id_query(ids: str, page_size: int = 100) -> dict[str, str]:
    """The parameters the package sends for an id_list lookup."""
    return {
        "search_query": "",
        "id_list": ids,
        "sortBy": "relevance",
        "sortOrder": "descending",
        "start": "0",
        "max_results": str(page_size),
    }


def serve(server: RecordedServer, params: dict[str, str], name: str, status: int = 200) -> None:
    server.add("/api/query", params, Reply(status, (API / name).read_bytes(), ATOM))


def test_a_paper_is_read_field_by_field(context: Context, server: RecordedServer) -> None:
    serve(server, id_query("1707.08567"), "id_1707.08567_s0_m100_6a1afebfc6a3.xml")
    api = arxiv_api.make_client(context.settings, context.api, 100)
    (record,) = arxiv_api.fetch_by_ids(api, ["1707.08567"]).records
    assert record.arxiv_id == "1707.08567"
    assert record.version == 1
    assert record.title == (
        "Proceedings of Workshop AEW10: Concepts in Information Theory and Communications"
    )
    assert record.authors[:3] == ("Kees A. Schouhamer Immink", "Stan Baggen", "Ferdaous Chaabane")
    assert record.authors[-1] == "Hirosuke Yamamoto"
    assert len(record.authors) == 34
    assert record.primary_category == "cs.IT"
    assert record.categories == ("cs.IT",)
    assert record.comment == (
        "44 pages, editors for the proceedings: Yanling Chen and A. J. Han Vinck"
    )
    assert record.submitted_at == datetime(2017, 7, 27, 8, 18, 33, tzinfo=UTC)
    assert record.updated_at == datetime(2017, 7, 27, 8, 18, 33, tzinfo=UTC)


def test_ids_are_looked_up_in_one_batch_and_a_missing_one_is_simply_absent(
    context: Context, server: RecordedServer
) -> None:
    serve(
        server,
        id_query("0808.05394,1707.08567"),
        "id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.xml",
    )
    api = arxiv_api.make_client(context.settings, context.api, 100)
    records = arxiv_api.fetch_by_ids(api, ["0808.05394", "1707.08567"]).records
    assert [record.arxiv_id for record in records] == ["1707.08567"]
    assert len(server.arrivals) == 1


def test_an_empty_result_is_no_papers_and_no_error(
    context: Context, server: RecordedServer
) -> None:
    serve(server, id_query("0000.0000"), "id_0000.0000_s0_m100_8b51d9633a68.xml")
    api = arxiv_api.make_client(context.settings, context.api, 100)
    assert arxiv_api.fetch_by_ids(api, ["0000.0000"]) == arxiv_api.Fetched([], {})


def test_the_error_feed_is_an_error_quoting_arxiv_and_is_not_retried(
    context: Context, server: RecordedServer
) -> None:
    recorded = json.loads((API / "id_abc_s0_m100_b79c8dcf6bc3.json").read_text())
    assert recorded["status_code"] == 400
    server.add("/api/query", id_query("abc"), Reply(400, recorded["body"].encode(), ATOM))
    api = arxiv_api.make_client(context.settings, context.api, 100)
    with pytest.raises(ApiQueryError, match="refused the query: incorrect id format for abc"):
        arxiv_api.fetch_by_ids(api, ["abc"])
    assert len(server.arrivals) == 1


def test_a_query_is_paged_with_start_and_max_results_through_the_gate(
    context: Context, server: RecordedServer
) -> None:
    for start, name in (("0", "bc5a6c384fe9"), ("10", "34e56e15aaac"), ("20", "348a237fecab")):
        params = {**id_query(""), "search_query": "testing", "start": start, "max_results": "10"}
        serve(server, params, f"q_testing_s{start}_m10_{name}.xml")
    api = arxiv_api.make_client(context.settings, context.api, 10)
    records = arxiv_api.search(api, "testing", 30).records
    assert len(records) == len({record.arxiv_id for record in records}) == 30
    assert [arrival.params["start"] for arrival in server.arrivals] == ["0", "10", "20"]
    times = [arrival.at for arrival in server.arrivals]
    interval = context.settings.arxiv_min_interval_seconds
    assert all(later - earlier >= interval for earlier, later in itertools.pairwise(times))
    assert all("Paperboy/" in arrival.headers["User-Agent"] for arrival in server.arrivals)


def test_unsafe_xml_from_the_api_is_refused_before_the_package_parses_it(
    context: Context, server: RecordedServer
) -> None:
    server.add("/api/query", id_query("1707.08567"), Reply(200, ENTITY_BOMB, ATOM))
    api = arxiv_api.make_client(context.settings, context.api, 100)
    with pytest.raises(UnsafeXmlError):
        arxiv_api.fetch_by_ids(api, ["1707.08567"])


def test_enriching_a_day_fills_in_the_listed_papers_and_names_the_missing_ones(
    context: Context, database: Database, server: RecordedServer
) -> None:
    day = date(2017, 7, 28)
    with database.sessions.begin() as session:
        live_writes.add_listing(session, day, "cs.IT", {"1707.08567": "new", "0808.05394": "cross"})
    serve(
        server,
        id_query("0808.05394,1707.08567"),
        "id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.xml",
    )
    (report,) = enrich_day(context, day, ("cs.IT",))
    assert report.status == "partial"
    assert "did not return 0808.05394" in str(report.error)
    assert (report.counts["read"], report.counts["enriched"], report.counts["new"]) == (2, 1, 1)
    with database.sessions() as session:
        paper = session.scalars(select(Paper)).one()
    assert (paper.arxiv_id, paper.primary_category, paper.version) == ("1707.08567", "cs.IT", 1)


def test_enriching_fills_what_a_listing_only_paper_lacks_and_keeps_its_announcement(
    context: Context, database: Database, server: RecordedServer
) -> None:
    day = date(2017, 7, 28)
    # As a daily listing crawl gives it: no version, no primary category, no times.
    listed = record("1707.08567", authors=(), categories=("cs.IT",), announced_on=day)
    with database.sessions.begin() as session:
        store_records(session, [listed])
        live_writes.add_listing(session, day, "cs.IT", {"1707.08567": "new"})
    serve(server, id_query("1707.08567"), "id_1707.08567_s0_m100_6a1afebfc6a3.xml")
    (report,) = enrich_day(context, day, ("cs.IT",))
    assert (report.status, report.counts["updated"]) == ("ok", 1)
    with database.sessions() as session:
        paper = session.scalars(select(Paper)).one()
    assert (paper.primary_category, paper.version, paper.announced_on) == ("cs.IT", 1, day)
    assert paper.submitted_at == datetime(2017, 7, 27, 8, 18, 33, tzinfo=UTC)


def test_an_api_entry_loses_its_control_characters_or_is_rejected_when_oversized(
    context: Context, server: RecordedServer
) -> None:
    body = (API / "q_testing_s0_m10_bc5a6c384fe9.xml").read_text()
    body = body.replace("Testing Deep Learning Models:", "Testing\x7f Deep\x9b Learning Models:")
    body = body.replace("<title>Towards Explainable", "<title>" + "Towards " * 200 + "Explainable")
    first = {**id_query(""), "search_query": "testing", "start": "0", "max_results": "10"}
    server.add("/api/query", first, Reply(200, body.encode(), ATOM))
    api = arxiv_api.make_client(context.settings, context.api, 10)
    fetched = arxiv_api.search(api, "testing", 10)
    assert len(fetched.records) == 9
    assert fetched.records[0].title.startswith("Testing Deep Learning Models:")
    ((arxiv_id, reason),) = fetched.rejected.items()
    assert reason == f"title: 1,665 characters, over the limit of {LIMITS.title:,}"
    assert arxiv_id not in {record.arxiv_id for record in fetched.records}


def test_an_answer_the_package_cannot_read_is_a_source_error(
    context: Context, server: RecordedServer
) -> None:
    body = (API / "id_1707.08567_s0_m100_6a1afebfc6a3.xml").read_bytes()
    body = body.replace(b"<published>2017-07-27T08:18:33Z", b"<published>0")
    server.add("/api/query", id_query("1707.08567"), Reply(200, body, ATOM))
    api = arxiv_api.make_client(context.settings, context.api, 100)
    with pytest.raises(FeedFormatError, match=r"the arXiv API's answer could not be read: .*'0'"):
        arxiv_api.fetch_by_ids(api, ["1707.08567"])


def test_enriching_a_day_reports_an_oversized_entry_as_rejected_not_missing(
    context: Context, database: Database, server: RecordedServer
) -> None:
    day = date(2017, 7, 28)
    with database.sessions.begin() as session:
        live_writes.add_listing(session, day, "cs.IT", {"1707.08567": "new", "0808.05394": "cross"})
    body = (API / "id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.xml").read_text()
    body = body.replace("<summary>The 10th", "<summary>" + "The " * 3000 + "10th")
    server.add("/api/query", id_query("0808.05394,1707.08567"), Reply(200, body.encode(), ATOM))
    (report,) = enrich_day(context, day, ("cs.IT",))
    assert (report.status, report.counts["rejected"], report.counts["new"]) == ("partial", 1, 0)
    rejection, missing = str(report.error).splitlines()
    assert re.fullmatch(
        r"1707\.08567: abstract: 12,\d{3} characters, over the limit of 10,000", rejection
    )
    assert missing == "the API did not return 0808.05394"


def test_enriching_a_day_without_a_listing_says_what_to_run_first(context: Context) -> None:
    (report,) = enrich_day(context, date(2017, 7, 28), ("cs.IT",))
    assert report.status == "empty"
    assert "run `paperboy ingest`" in str(report.error)


def test_an_empty_page_in_the_middle_of_a_result_set_is_retried_then_reported(
    context: Context, server: RecordedServer
) -> None:
    first = {**id_query(""), "search_query": "testing", "start": "0", "max_results": "10"}
    serve(server, first, "q_testing_s0_m10_bc5a6c384fe9.xml")
    # The real empty result stands in for the empty page the API now and then serves.
    serve(server, {**first, "start": "10"}, "id_0000.0000_s0_m100_8b51d9633a68.xml")
    api = arxiv_api.make_client(context.settings, context.api, 10)
    with pytest.raises(FetchError, match="kept serving an empty page"):
        arxiv_api.search(api, "testing", 30)
    starts = [arrival.params["start"] for arrival in server.arrivals]
    assert starts == ["0"] + ["10"] * (arxiv_api.EMPTY_PAGE_RETRIES + 1)
