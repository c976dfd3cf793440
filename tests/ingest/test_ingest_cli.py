"""``paperboy ingest`` and ``paperboy backfill``: exit codes, printed lines, the ingest log."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import select

from app.cli.main import main
from app.core.config import Settings
from app.core.models import IngestRun
from tests.conftest import FIXTURES, Database
from tests.ingest.recorded_server import RecordedServer, Reply
from tests.ingest.test_rss import feed_reply

OAI_PAGE = (FIXTURES / "arxiv_oai" / "sample_arxiv_response_listrecords_cs.xml").read_bytes()


def logged(database: Database) -> list[IngestRun]:
    with database.sessions() as session:
        return list(session.scalars(select(IngestRun).order_by(IngestRun.id)))


def test_ingest_from_rss_prints_and_logs_each_category(
    live_settings: Settings,
    database: Database,
    server: RecordedServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server.add("/rss/cs+math", {}, feed_reply("2023-10-26_rss__cs+math.xml"))
    status = main(["ingest", "--source", "rss", "--categories", "cs,math"], live_settings)
    assert status == 0
    out = capsys.readouterr().out
    assert "rss cs 2023-10-26: ok (read 3, new 1, cross 1, replaced 1)" in out
    runs = logged(database)
    assert [(run.source, run.category, run.status) for run in runs] == [
        ("rss", "cs", "ok"),
        ("rss", "math", "ok"),
    ]
    assert (runs[0].announced_on, runs[0].new_count, runs[0].cross_count) == (
        date(2023, 10, 26),
        1,
        1,
    )


def test_asking_rss_for_an_old_day_exits_1_and_logs_the_reason(
    live_settings: Settings,
    database: Database,
    server: RecordedServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server.add("/rss/cs", {}, feed_reply("2023-10-26_rss__cs+math.xml"))
    argv = ["ingest", "--source", "rss", "--categories", "cs", "--date", "2023-10-02"]
    assert main(argv, live_settings) == 1
    assert "paperboy backfill --from 2023-10-02" in capsys.readouterr().out
    (run,) = logged(database)
    assert run.status == "failed"
    assert "only the latest announcement" in str(run.error)


def test_a_feed_that_is_an_html_page_exits_1_and_keeps_what_was_stored(
    live_settings: Settings, database: Database, server: RecordedServer
) -> None:
    html = Reply(200, b"<html><body>Maintenance</body></html>", {"Content-Type": "text/html"})
    server.add("/rss/cs", {}, feed_reply("2023-10-26_rss__cs+math.xml"), html)
    argv = ["ingest", "--source", "rss", "--categories", "cs"]
    assert main(argv, live_settings) == 0
    assert main(argv, live_settings) == 1
    assert [run.status for run in logged(database)] == ["ok", "failed"]
    assert "expected RSS or Atom, got <html>" in str(logged(database)[1].error)


def test_backfill_harvests_the_inclusive_range_per_category(
    live_settings: Settings,
    database: Database,
    server: RecordedServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    params = {
        "verb": "ListRecords",
        "metadataPrefix": "arXiv",
        "set": "cs",
        "from": "2015-01-16",
        "until": "2015-01-18",
    }
    server.add("/oai", params, Reply(200, OAI_PAGE, {"Content-Type": "text/xml"}))
    argv = ["backfill", "--from", "2015-01-16", "--until", "2015-01-18", "--categories", "cs"]
    assert main(argv, live_settings) == 0
    assert "oai cs: ok (read 46, new 46)" in capsys.readouterr().out
    (run,) = logged(database)
    assert (run.source, run.read_count, run.detail) == ("oai", 46, "set cs, 2015-01-16..2015-01-18")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ingest", "--date", "2023-13-01"], "not a date"),
        (["ingest", "--source", "bluesky"], "invalid choice"),
        (["ingest", "--categories", "cs.AI;cs.LG"], "not a comma-separated list"),
        (["backfill", "--until", "2015-01-18"], "--from"),
    ],
)
def test_bad_arguments_are_refused_with_a_clear_message(
    live_settings: Settings, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv, live_settings)
    assert exited.value.code == 2
    assert message in capsys.readouterr().err


def test_a_backfill_that_ends_before_it_starts_is_refused(
    live_settings: Settings, database: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["backfill", "--from", "2015-01-18", "--until", "2015-01-16"]
    assert main(argv, live_settings) == 1
    assert "is before --from" in capsys.readouterr().err
    assert logged(database) == []


def test_ingest_of_all_sources_carries_the_feeds_day_to_the_api_and_hugging_face(
    live_settings: Settings, database: Database, server: RecordedServer
) -> None:
    server.add("/rss/cs+math", {}, feed_reply("2023-10-26_rss__cs+math.xml"))
    # No recordings exist for these ids or this HF date: the server answers 404 to both.
    assert main(["ingest", "--categories", "cs,math"], live_settings) == 1
    rss, api, hf = server.arrivals
    assert rss.path == "/rss/cs+math"
    assert api.path == "/api/query"
    assert api.params["id_list"] == "2310.05645,2310.05646,2310.05657,2310.16106"
    assert (hf.path, hf.params) == ("/api/daily_papers", {"date": "2023-10-26"})
    statuses = [(run.source, run.status) for run in logged(database)]
    assert statuses == [("rss", "ok"), ("rss", "ok"), ("api", "failed"), ("hf", "failed")]
