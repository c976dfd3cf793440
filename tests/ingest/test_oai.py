"""OAI-PMH backfills against recorded arXiv responses."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.core.models import Paper
from ingest import live_writes, oai
from ingest.live import Context, RunReport, exit_code
from ingest.oai import backfill, cross_check, harvest
from ingest.paper_writer import store_records
from ingest.records import LIMITS
from tests.conftest import FIXTURES, Database
from tests.ingest.recorded_server import RecordedServer, Reply
from tests.ingest.test_paper_writer import record

OAI = FIXTURES / "arxiv_oai"
XML = {"Content-Type": "text/xml"}
CS_PAGE = "sample_arxiv_response_listrecords_cs.xml"


def reply(name: str) -> Reply:
    return Reply(200, (OAI / name).read_bytes(), XML)


def harvest_params(set_spec: str, from_day: str, until_day: str) -> dict[str, str]:
    return {
        "verb": "ListRecords",
        "metadataPrefix": "arXiv",
        "set": set_spec,
        "from": from_day,
        "until": until_day,
    }


def stored(database: Database) -> dict[str, Paper]:
    with database.sessions() as session:
        query = select(Paper).options(selectinload(Paper.authors), selectinload(Paper.categories))
        return {paper.arxiv_id: paper for paper in session.scalars(query)}


@pytest.mark.parametrize(
    ("category", "set_spec"),
    [
        ("cs.AI", "cs:cs:AI"),
        ("cs", "cs"),
        ("math.AG", "math:math:AG"),
        ("hep-th", "physics:hep-th"),
        ("astro-ph.CO", "physics:astro-ph:CO"),
    ],
)
def test_a_category_maps_to_todays_oai_set(category: str, set_spec: str) -> None:
    assert oai.oai_set(category) == set_spec


def test_a_backfill_stores_every_record_of_the_range_field_by_field(
    context: Context, database: Database, server: RecordedServer
) -> None:
    server.add("/oai", harvest_params("cs", "2015-01-16", "2015-01-18"), reply(CS_PAGE))
    (report,) = backfill(context, ("cs",), date(2015, 1, 16), date(2015, 1, 18))
    assert (report.status, report.counts["read"], report.counts["new"]) == ("ok", 46, 46)
    paper = stored(database)["1101.4388"]
    assert paper.title == "Reproducing Kernel Banach Spaces with the l1 Norm"
    assert paper.author_names == ["Guohui Song", "Haizhang Zhang", "Fred J. Hickernell"]
    assert paper.primary_category == "stat.ML"
    assert paper.category_names == ["stat.ML", "cs.LG", "math.FA"]
    assert paper.journal_ref == "Appl. Comput. Harmon. Anal., 34:96-116, 2013"
    assert paper.doi == "10.1016/j.acha.2012.03.009"
    assert paper.submitted_at == datetime(2011, 1, 23, tzinfo=UTC)
    assert paper.updated_at == datetime(2012, 3, 28, tzinfo=UTC)
    assert paper.announced_on is None  # OAI datestamps are not announcement days
    assert not paper.withdrawn


def test_a_backfill_fills_what_a_listing_only_paper_lacks_and_keeps_its_announcement(
    context: Context, database: Database, server: RecordedServer
) -> None:
    day = date(2011, 1, 24)
    # As a listing gives it: categories in no set order, no primary category, no times.
    listed = record(
        "1101.4388", version=2, authors=(), categories=("cs.LG", "stat.ML"), announced_on=day
    )
    with database.sessions.begin() as session:
        store_records(session, [listed])
    server.add("/oai", harvest_params("cs", "2015-01-16", "2015-01-18"), reply(CS_PAGE))
    backfill(context, ("cs",), date(2015, 1, 16), date(2015, 1, 18))
    paper = stored(database)["1101.4388"]
    assert (paper.primary_category, paper.submitted_at) == (
        "stat.ML",
        datetime(2011, 1, 23, tzinfo=UTC),
    )
    assert paper.category_names == ["stat.ML", "cs.LG", "math.FA"]
    # The arXiv format has no versions: the listing's stays.
    assert (paper.version, paper.announced_on) == (2, day)


def test_backfilling_the_same_range_twice_stores_it_once(
    context: Context, database: Database, server: RecordedServer
) -> None:
    server.add("/oai", harvest_params("cs", "2015-01-16", "2015-01-18"), reply(CS_PAGE))
    backfill(context, ("cs",), date(2015, 1, 16), date(2015, 1, 18))
    first = {key: paper.content_hash for key, paper in stored(database).items()}
    (again,) = backfill(context, ("cs",), date(2015, 1, 16), date(2015, 1, 18))
    assert (again.counts["new"], again.counts["unchanged"]) == (0, 46)
    assert {key: paper.content_hash for key, paper in stored(database).items()} == first


def test_control_characters_in_a_harvested_record_are_not_stored(
    context: Context, database: Database, server: RecordedServer
) -> None:
    # XML 1.0 cannot carry NUL or most C0 controls, but DEL and the C1 controls pass.
    body = (
        (OAI / CS_PAGE)
        .read_text()
        .replace("Reproducing Kernel", "Reproducing\x7f Kernel\x9b")
        .replace("<keyname>Song", "<keyname>So&#x7f;ng\x85")
        .replace("an extra section", "an\x80 extra section")
        .replace("Targeting at sparse", "Targeting\x9f at sparse")
    )
    server.add("/oai", harvest_params("cs", "2015-01-16", "2015-01-18"), Reply(200, body.encode()))
    (report,) = backfill(context, ("cs",), date(2015, 1, 16), date(2015, 1, 18))
    assert (report.status, report.counts["new"]) == ("ok", 46)
    paper = stored(database)["1101.4388"]
    assert paper.title == "Reproducing Kernel Banach Spaces with the l1 Norm"
    assert paper.author_names[0] == "Guohui Song"
    assert paper.comment == "28 pages, an extra section was added"
    assert paper.abstract.startswith("Targeting at sparse learning")


def test_an_oversized_harvested_record_is_rejected_with_its_reason_and_the_rest_stored(
    context: Context, database: Database, server: RecordedServer
) -> None:
    huge = "Reproducing Kernel " * 100
    body = (OAI / CS_PAGE).read_text().replace("Reproducing Kernel ", huge)
    server.add("/oai", harvest_params("cs", "2015-01-16", "2015-01-18"), Reply(200, body.encode()))
    (report,) = backfill(context, ("cs",), date(2015, 1, 16), date(2015, 1, 18))
    assert (report.status, report.counts["new"], report.counts["rejected"]) == ("partial", 45, 1)
    assert str(report.error) == (
        f"record 1: title: 1,930 characters, over the limit of {LIMITS.title:,}"
    )
    assert "1101.4388" not in stored(database) and len(stored(database)) == 45


def test_no_records_match_is_an_empty_result_not_an_error(
    context: Context, server: RecordedServer
) -> None:
    params = harvest_params("physics:hep-lat", "2015-01-17", "2015-01-17")
    server.add("/oai", params, reply("sample_empty_response.xml"))
    (report,) = backfill(context, ("hep-lat",), date(2015, 1, 17), date(2015, 1, 17))
    assert report.status == "empty"
    assert exit_code([report]) == 0


def test_a_resumption_token_is_followed_to_the_next_page(
    context: Context, database: Database, server: RecordedServer
) -> None:
    first = {
        "verb": "ListRecords",
        "metadataPrefix": "oai_dc",
        "set": "cs",
        "from": "2024-01-25",
        "until": "2024-01-25",
    }
    server.add("/oai", first, reply("atomiklabs_listrecords_oai_dc_cs_2024-01-25.xml"))
    server.add("/oai", {"verb": "ListRecords", "resumptionToken": "6960524|1001"}, reply(CS_PAGE))
    report = RunReport("oai", "cs")
    harvest(context, report, "cs", date(2024, 1, 25), date(2024, 1, 25), "oai_dc")
    assert (report.status, report.counts["read"]) == ("ok", 5 + 46)
    assert server.arrivals[1].params == {"verb": "ListRecords", "resumptionToken": "6960524|1001"}
    dc_paper = stored(database)["2401.14040"]
    assert dc_paper.author_names[0] and dc_paper.comment == "Accepted to the Findings of EACL 2024"


def test_an_expired_resumption_token_fails_and_keeps_the_pages_before_it(
    context: Context, database: Database, server: RecordedServer
) -> None:
    first = {
        "verb": "ListRecords",
        "metadataPrefix": "oai_dc",
        "set": "cs",
        "from": "2024-01-25",
        "until": "2024-01-25",
    }
    server.add("/oai", first, reply("atomiklabs_listrecords_oai_dc_cs_2024-01-25.xml"))
    server.add(
        "/oai",
        {"verb": "ListRecords", "resumptionToken": "6960524|1001"},
        reply("handwritten_bad_resumption_token.xml"),
    )
    report = RunReport("oai", "cs")
    harvest(context, report, "cs", date(2024, 1, 25), date(2024, 1, 25), "oai_dc")
    assert report.status == "failed"
    assert "badResumptionToken" in str(report.error)
    assert "after 5 records, which stay stored" in str(report.error)
    assert len(stored(database)) == 5


def test_a_503_with_retry_after_is_waited_out(
    context: Context, database: Database, server: RecordedServer
) -> None:
    calls = json.loads((OAI / "paperhive_listrecords_503_then_200.json").read_text())
    replies = [
        Reply(call["status"], call["response"].encode(), {"Retry-After": "10"})
        if call["status"] == 503
        else Reply(200, call["response"].encode(), XML)
        for call in calls
    ]
    params = {
        "verb": "ListRecords",
        "metadataPrefix": "arXiv",
        "from": "2015-01-01",
        "until": "2015-01-03",
    }
    server.add("/oai", params, *replies)
    report = RunReport("oai")
    harvest(context, report, None, date(2015, 1, 1), date(2015, 1, 3))
    assert (report.status, report.counts["read"]) == ("ok", 2)
    first, second = server.arrivals
    assert second.at - first.at >= context.settings.arxiv_max_wait_seconds


def test_a_withdrawn_paper_is_kept_and_marked(
    context: Context, database: Database, server: RecordedServer
) -> None:
    params = harvest_params("physics", "2015-01-16", "2015-01-18")
    server.add("/oai", params, reply("physics_withdrawn_record_excerpt.xml"))
    report = RunReport("oai", "physics")
    harvest(context, report, "physics", date(2015, 1, 16), date(2015, 1, 18))
    paper = stored(database)["1007.2349"]
    assert paper.withdrawn
    assert str(paper.comment).startswith("This reprint has been withdrawn")


@pytest.mark.parametrize(
    "body",
    [b"<html><body>Bad Gateway</body></html>", b"<OAI-PMH xmlns='x'><ListRecords>"],
    ids=["html-page", "truncated"],
)
def test_a_page_that_is_not_oai_pmh_fails_the_backfill_clearly(
    context: Context, server: RecordedServer, body: bytes
) -> None:
    server.add("/oai", harvest_params("cs", "2015-01-16", "2015-01-18"), Reply(200, body))
    (report,) = backfill(context, ("cs",), date(2015, 1, 16), date(2015, 1, 18))
    assert report.status == "failed"
    assert "OAI-PMH response" in str(report.error)
    assert exit_code([report]) == 1


def test_an_until_day_before_the_from_day_is_refused(context: Context) -> None:
    with pytest.raises(ValueError, match="before --from"):
        backfill(context, ("cs",), date(2015, 1, 18), date(2015, 1, 16))


def test_a_days_harvest_is_cross_checked_against_its_stored_listing(
    context: Context, database: Database, server: RecordedServer
) -> None:
    day = date(2015, 1, 16)
    with database.sessions.begin() as session:
        listed = {"1101.4388": "new", "1111.1546": "new", "1501.09999": "new"}
        live_writes.add_listing(session, day, "cs", listed)
    # The recorded page (datestamps 2015-01-16..18) stands in for the harvest of one day.
    server.add("/oai", harvest_params("cs", "2015-01-16", "2015-01-16"), reply(CS_PAGE))
    (report,) = cross_check(context, ("cs",), day)
    assert (report.status, report.announced_on) == ("ok", day)
    assert report.detail == "set cs, 2015-01-16..2015-01-16; 2 of 3 listed papers harvested"
