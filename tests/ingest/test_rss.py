"""RSS/Atom listings: arXiv's own feed service's output, replayed by a local server.

Six of the seven papers in those recordings have arXiv's synthetic ids (``1234.56xx``, month
34), which are not valid arXiv ids; :func:`valid` renames them ``2310.056xx`` so they can be
stored. The recordings are otherwise used byte for byte; where a test needs another shape
(a missing title, a newer version), it says so.
"""

from __future__ import annotations

import json
from datetime import date

import pytest
from sqlalchemy import func, select

from app.core.config import Settings
from app.core.models import AnnouncementEntry, Paper
from ingest.live import Context, close, exit_code, ingest_rss, make_context
from ingest.rss import parse_listing
from tests.conftest import FIXTURES, Database
from tests.ingest.hostile_xml import ENTITY_BOMB, EXTERNAL_ENTITY
from tests.ingest.recorded_server import RecordedServer, Reply

RSS = FIXTURES / "arxiv_rss"
CATEGORIES = ("cs", "math")
OCT_26, OCT_27 = date(2023, 10, 26), date(2023, 10, 27)


def valid(body: bytes) -> bytes:
    return body.replace(b"1234.56", b"2310.056")


def recording(name: str) -> bytes:
    return (RSS / name).read_bytes()


def feed_reply(name: str, *, rename: bool = True) -> Reply:
    body = recording(name)
    sidecar = RSS / f"{name}.json"
    headers = dict(json.loads(sidecar.read_text())["headers"]) if sidecar.exists() else {}
    kept = {key: value for key, value in headers.items() if key in ("ETag", "Content-Type")}
    return Reply(200, valid(body) if rename else body, kept)


def stored_papers(database: Database) -> dict[str, Paper]:
    with database.sessions() as session:
        return {paper.arxiv_id: paper for paper in session.scalars(select(Paper))}


def listing(database: Database, day: date, category: str) -> dict[str, str]:
    query = select(AnnouncementEntry).where(
        AnnouncementEntry.announced_on == day, AnnouncementEntry.category == category
    )
    with database.sessions() as session:
        return {entry.arxiv_id: entry.announce_type for entry in session.scalars(query)}


def test_a_feed_item_reads_field_by_field() -> None:
    items = parse_listing(valid(recording("2023-10-26_rss__cs+math.xml"))).items
    first = items[0]
    assert first.announce_type == "new"
    assert first.listed_on == OCT_26
    assert first.record.arxiv_id == "2310.16106"
    assert first.record.version == 1
    assert first.record.title == (
        "Decentralized Learning over Wireless Networks with Broadcast-Based Subgraph Sampling"
    )
    # The feed writes "P\\\\'erez" (TeX, its backslash escaped): stored as the name reads.
    assert first.record.authors == ("Daniel Pérez Herrera", "Zheng Chen", "Erik G. Larsson")
    assert first.record.categories == ("cs.IT",)
    assert first.record.abstract.startswith("This work centers on the communication aspects")
    assert first.record.announced_on == OCT_26
    replacement = items[3]
    assert (replacement.announce_type, replacement.record.arxiv_id) == (
        "replace-cross",
        "2310.05645",
    )
    assert replacement.record.announced_on is None  # a replacement is not that day's paper
    assert replacement.record.doi == "10.0000/00-AAA0000"


def test_the_atom_feed_gives_the_same_items_as_the_rss_feed() -> None:
    rss = parse_listing(valid(recording("2023-10-26_rss__cs+math.xml"))).items
    atom = parse_listing(valid(recording("2023-10-26_atom__cs+math.xml"))).items
    assert [item.record for item in atom] == [item.record for item in rss]


@pytest.mark.parametrize("name", ["2023-10-26_rss__cs+math.xml", "2023-10-26_atom__cs+math.xml"])
def test_an_items_first_category_is_its_primary_one(name: str) -> None:
    # arXiv's test database: astro-ph is the primary of every 1234.56xx paper (cross-listed
    # in this cs+math feed), cs.IT that of 2310.16106 (see docs/ingest.md).
    items = parse_listing(valid(recording(name))).items
    assert {item.record.arxiv_id: item.record.primary_category for item in items} == {
        "2310.16106": "cs.IT",
        "2310.05646": "astro-ph",
        "2310.05657": "astro-ph",
        "2310.05645": "astro-ph",
    }


def test_a_first_category_that_is_not_an_arxiv_one_names_no_primary() -> None:
    body = valid(recording("2023-10-26_rss__cs+math.xml")).replace(
        b"<category>cs.IT</category>", b"<category>68T50</category><category>cs.IT</category>"
    )
    first = parse_listing(body).items[0].record
    assert (first.categories, first.primary_category) == (("cs.IT",), None)


def test_a_day_is_stored_with_its_new_and_cross_listed_papers(
    context: Context, database: Database, server: RecordedServer
) -> None:
    server.add("/rss/cs+math", {}, feed_reply("2023-10-26_rss__cs+math.xml"))
    reports = ingest_rss(context, CATEGORIES)
    by_category = {report.category: report for report in reports}
    assert [report.status for report in reports] == ["ok", "ok"]
    assert by_category["cs"].announced_on == OCT_26
    assert dict(by_category["cs"].counts) == {"read": 3, "new": 1, "cross": 1, "replaced": 1}
    assert dict(by_category["math"].counts) == {"read": 3, "cross": 2, "replaced": 1}
    assert listing(database, OCT_26, "cs") == {
        "2310.16106": "new",
        "2310.05646": "cross",
        "2310.05645": "replace-cross",
    }
    papers = stored_papers(database)
    assert papers["2310.16106"].announced_on == OCT_26
    assert (papers["2310.16106"].primary_category, papers["2310.16106"].version) == ("cs.IT", 1)
    assert (papers["2310.05646"].primary_category, papers["2310.05646"].version) == ("astro-ph", 2)
    assert papers["2310.05645"].announced_on is None
    assert exit_code(reports) == 0


def test_the_request_goes_to_the_feed_of_the_categories_in_the_configured_format(
    context: Context, server: RecordedServer
) -> None:
    server.add("/rss/cs+math", {}, feed_reply("2023-10-26_rss__cs+math.xml"))
    ingest_rss(context, CATEGORIES)
    assert [arrival.path for arrival in server.arrivals] == ["/rss/cs+math"]


def test_running_a_day_twice_stores_it_once(
    context: Context, database: Database, server: RecordedServer
) -> None:
    server.add("/rss/cs+math", {}, feed_reply("2023-10-26_rss__cs+math.xml"))
    ingest_rss(context, CATEGORIES, OCT_26)
    first = {key: (p.version, p.content_hash) for key, p in stored_papers(database).items()}
    ingest_rss(context, CATEGORIES, OCT_26)
    second = {key: (p.version, p.content_hash) for key, p in stored_papers(database).items()}
    assert first == second
    with database.sessions() as session:
        assert session.scalar(select(func.count()).select_from(AnnouncementEntry)) == 6


def test_a_replacement_updates_the_version_and_is_not_a_new_paper(
    context: Context, database: Database, server: RecordedServer
) -> None:
    # The next day lists 2310.05657 as replace-cross; arXiv's test database gives the
    # replacement the same version, so the test raises it to v2 to see the version move.
    next_day = valid(recording("2023-10-27_rss__cs+math.xml")).replace(b"05657v1", b"05657v2")
    server.add("/rss/cs+math", {}, feed_reply("2023-10-26_rss__cs+math.xml"), Reply(200, next_day))
    ingest_rss(context, CATEGORIES)
    reports = ingest_rss(context, CATEGORIES)
    math = next(report for report in reports if report.category == "math")
    assert (math.announced_on, math.counts["replaced"], math.counts["new"]) == (OCT_27, 1, 0)
    replaced = stored_papers(database)["2310.05657"]
    assert replaced.version == 2
    assert replaced.announced_on == OCT_26  # still announced on its first day


def test_an_unchanged_feed_costs_a_conditional_request_and_nothing_else(
    context: Context, database: Database, server: RecordedServer
) -> None:
    first = feed_reply("2023-10-26_rss__cs+math.xml")
    server.add("/rss/cs+math", {}, first, Reply(304))
    ingest_rss(context, CATEGORIES)
    reports = ingest_rss(context, CATEGORIES)
    assert server.arrivals[1].headers["If-None-Match"] == first.headers["ETag"]
    assert [report.status for report in reports] == ["unchanged", "unchanged"]
    assert exit_code(reports) == 0
    assert len(stored_papers(database)) == 4


def test_an_unknown_category_fails_with_arxivs_own_explanation(
    context: Context, server: RecordedServer
) -> None:
    body = recording("2023-10-26_rss__cs.XX.xml")
    server.add("/rss/cs.XX", {}, Reply(400, body, {"Content-Type": "application/rss+xml"}))
    (report,) = ingest_rss(context, ("cs.XX",))
    assert report.status == "failed"
    assert "HTTP 400" in str(report.error)
    assert "Bad subject class 'XX'" in str(report.error)
    assert exit_code([report]) == 1


def test_asking_rss_for_an_older_day_is_an_error_that_points_to_oai_pmh(
    context: Context, database: Database, server: RecordedServer
) -> None:
    server.add("/rss/cs+math", {}, feed_reply("2023-10-26_rss__cs+math.xml"))
    reports = ingest_rss(context, CATEGORIES, date(2023, 10, 20))
    assert {report.status for report in reports} == {"failed"}
    assert "only the latest announcement (2023-10-26)" in str(reports[0].error)
    assert "paperboy backfill --from 2023-10-20 --until 2023-10-20" in str(reports[0].error)
    assert stored_papers(database) == {}


def test_a_feed_serving_an_older_day_than_another_category_is_reported_stale(
    context: Context, database: Database, server: RecordedServer
) -> None:
    server.add("/rss/math", {}, feed_reply("2023-10-27_rss__cs+math.xml"))
    server.add("/rss/cs", {}, feed_reply("2023-10-26_rss__cs+math.xml"))
    ingest_rss(context, ("math",))
    (report,) = ingest_rss(context, ("cs",))
    assert report.status == "stale"
    assert "serves 2023-10-26; another category already has 2023-10-27" in str(report.error)
    assert exit_code([report]) == 2


def test_a_smaller_listing_never_replaces_the_stored_one(
    context: Context, database: Database, server: RecordedServer
) -> None:
    # The same day again, but with the synthetic ids left invalid: only one item survives.
    raw = feed_reply("2023-10-26_rss__cs+math.xml", rename=False)
    server.add("/rss/cs+math", {}, feed_reply("2023-10-26_rss__cs+math.xml"), raw)
    ingest_rss(context, CATEGORIES)
    reports = ingest_rss(context, CATEGORIES)
    cs = next(report for report in reports if report.category == "cs")
    assert cs.status == "partial"  # worse than "smaller", so it wins; both are noted
    assert "the feed lists 1 papers; 3 stay stored" in str(cs.error)
    assert len(listing(database, OCT_26, "cs")) == 3


def test_items_without_a_valid_id_or_a_title_are_rejected_and_the_rest_stored(
    context: Context, database: Database, server: RecordedServer
) -> None:
    body = recording("2023-10-26_rss__cs+math.xml")
    # Shapes arXiv's feed never produced, made from the recording: an item without a title.
    body = body.replace(b"<title>Mysteries of the Universe</title>", b"<title></title>", 1)
    server.add("/rss/cs+math", {}, Reply(200, body))
    reports = ingest_rss(context, CATEGORIES)
    assert {report.status for report in reports} == {"partial"}
    assert reports[0].counts["rejected"] == 3
    assert "item 2: not an arXiv identifier" in str(reports[0].error)
    assert list(stored_papers(database)) == ["2310.16106"]
    assert exit_code(reports) == 2


def test_an_empty_feed_is_reported_empty_and_is_not_an_error(
    context: Context, server: RecordedServer
) -> None:
    server.add("/rss/astro-ph", {}, feed_reply("2023-10-27_rss__astro-ph.xml"))
    (report,) = ingest_rss(context, ("astro-ph",))
    assert report.status == "empty"
    assert exit_code([report]) == 0


def test_bad_responses_fail_the_run_and_keep_what_was_stored(
    context: Context, database: Database, server: RecordedServer
) -> None:
    good = feed_reply("2023-10-26_rss__cs+math.xml")
    bad = [
        Reply(200, b"<html><body>Service temporarily unavailable</body></html>"),
        Reply(200, good.body[: len(good.body) // 2]),  # truncated
        Reply(200, good.body.replace(b"Larsson", b"Larss\xf6n")),  # not UTF-8
        Reply(404, b"not found"),
    ]
    server.add("/rss/cs+math", {}, good, *bad)
    ingest_rss(context, CATEGORIES)
    before = stored_papers(database).keys()
    errors = []
    for _ in bad:
        reports = ingest_rss(context, CATEGORIES)
        assert {report.status for report in reports} == {"failed"}
        errors.append(str(reports[0].error))
    assert "expected RSS or Atom, got <html>" in errors[0]
    assert "not well-formed XML" in errors[1]
    assert "not well-formed XML" in errors[2]
    assert "HTTP 404" in errors[3]
    assert stored_papers(database).keys() == before
    assert len(listing(database, OCT_26, "cs")) == 3


def test_an_oversized_feed_fails_the_run_clearly_and_keeps_what_was_stored(
    live_settings: Settings, database: Database, server: RecordedServer
) -> None:
    good = feed_reply("2023-10-26_rss__cs+math.xml")
    limit = len(good.body)
    oversized = Reply(200, good.body.replace(b"</channel>", b" " * 10 + b"</channel>"))
    server.add("/rss/cs+math", {}, good, oversized)
    context = make_context(
        live_settings.model_copy(update={"ingest_max_response_bytes": limit}), database.engine
    )
    try:
        ingest_rss(context, CATEGORIES)
        before = stored_papers(database)
        reports = ingest_rss(context, CATEGORIES)
    finally:
        close(context)
    assert {report.status for report in reports} == {"failed"}
    assert f"larger than {limit:,} bytes (PAPERBOY_INGEST_MAX_RESPONSE_BYTES)" in str(
        reports[0].error
    )
    assert {key: paper.content_hash for key, paper in stored_papers(database).items()} == {
        key: paper.content_hash for key, paper in before.items()
    }
    assert len(listing(database, OCT_26, "cs")) == 3


@pytest.mark.parametrize("body", [EXTERNAL_ENTITY, ENTITY_BOMB], ids=["external-entity", "bomb"])
def test_a_feed_declaring_entities_is_refused_unexpanded_and_nothing_is_stored(
    context: Context, database: Database, server: RecordedServer, body: bytes
) -> None:
    server.add("/rss/cs+math", {}, Reply(200, body, {"Content-Type": "application/rss+xml"}))
    reports = ingest_rss(context, CATEGORIES)
    assert {report.status for report in reports} == {"failed"}
    assert "refused unsafe XML" in str(reports[0].error)
    assert stored_papers(database) == {}
