"""``/readyz``, ``/status`` and ``/metrics``; and the daily chain: a failed ingest publishes
nothing and the status page says so, the next run repairs it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from app.cli.main import main
from app.core.config import Settings, get_settings
from app.core.db import make_engine, session_scope
from app.core.models import Edition, JobRun, Paper
from app.core.schema import head_revision
from app.services.jobs.runs import acknowledge, note_outcome
from app.services.jobs.table import SCHEDULES, jobs_on
from app.services.reports import Outcome
from app.services.status import Status, gather
from app.web.app import create_app
from tests.conftest import FIXTURES, Database
from tests.ingest.hf_pages import without_thumbnails
from tests.ingest.recorded_server import RecordedServer, Reply
from tests.ingest.test_rss import feed_reply

EMPTY_API = (FIXTURES / "arxiv_api" / "id_0000.0000_s0_m100_8b51d9633a68.xml").read_bytes()
HF_PAGE = without_thumbnails((FIXTURES / "hf_daily" / "daily_papers_2025-11-03.json").read_bytes())
FEED_DAY = "2023-10-26"
FEED_IDS = "2310.05645,2310.05646,2310.05657,2310.16106"


@pytest.fixture
def client(ops_settings: Settings) -> Iterator[TestClient]:
    settings = ops_settings.model_copy(update={"search_semantic": False})
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_a_migrated_database_is_ready(client: TestClient) -> None:
    answer = client.get("/readyz")
    assert answer.status_code == 200
    assert answer.json()["status"] == "ready"


def test_a_database_without_migrations_is_not_ready(tmp_path: Path) -> None:
    settings = get_settings(data_dir=tmp_path, search_semantic=False)
    with TestClient(create_app(settings)) as fresh:
        answer = fresh.get("/readyz")
    assert answer.status_code == 503
    head = head_revision(make_engine(settings))
    assert answer.json() == {"status": "schema out of date", "schema": None, "head": head}


def test_an_unreachable_database_is_not_ready(tmp_path: Path) -> None:
    url = "postgresql+psycopg://nobody:nothing@127.0.0.1:9/paperboy?connect_timeout=2"
    settings = get_settings(data_dir=tmp_path, database_url=url, search_semantic=False)
    with TestClient(create_app(settings)) as unreachable:
        answer = unreachable.get("/readyz")
    assert answer.status_code == 503
    assert answer.json()["status"] == "database unreachable"


def test_the_status_page_of_a_failing_job_has_a_red_line_and_answers_503(
    ops_settings: Settings, client: TestClient
) -> None:
    assert main(["jobs", "run", "signals", "--date", "2025-11-03"], ops_settings) == 1
    page = client.get("/status")
    assert page.status_code == 503
    assert 'class="status-bad" role="alert">Job signals is failing since' in page.text
    assert "Source hf is failed" in page.text
    report = client.get("/status.json").json()
    assert report["healthy"] is False
    assert [job["name"] for job in report["jobs"]] == [
        "daily",
        "signals",
        "digests",
        "mail",
        "prune",
        "discussion-mail",
    ]
    assert report["jobs"][1]["last_result"] == "failed"
    assert report["jobs"][1]["last_success"] is None
    assert report["incidents"][0]["job"] == "signals"
    metrics = client.get("/metrics").text
    assert "paperboy_open_incidents 1\n" in metrics
    assert 'paperboy_items{kind="papers"} 0\n' in metrics


def serve_the_announcement(server: RecordedServer) -> None:
    server.add("/rss/cs+math", {}, feed_reply("2023-10-26_rss__cs+math.xml"))
    query = {
        "search_query": "",
        "id_list": FEED_IDS,
        "sortBy": "relevance",
        "sortOrder": "descending",
        "start": "0",
        "max_results": "100",
    }
    server.add("/api/query", query, Reply(200, EMPTY_API, {"Content-Type": "application/atom+xml"}))
    # A real HF page (of another day): its papers are unknown to the API, so HF is partial.
    server.add("/api/daily_papers", {"date": FEED_DAY}, Reply(200, HF_PAGE))
    hf_ids = ",".join(sorted(paper["paper"]["id"] for paper in json.loads(HF_PAGE)))
    server.add("/api/query", query | {"id_list": hf_ids}, Reply(200, EMPTY_API))


def day_editions(database: Database) -> list[Edition]:
    with database.sessions() as session:
        return list(session.scalars(select(Edition).where(Edition.period == "day")))


@pytest.mark.model
def test_a_failed_ingest_publishes_nothing_and_the_next_run_repairs_it(
    ops_settings: Settings, database: Database, server: RecordedServer, client: TestClient
) -> None:
    settings = ops_settings.model_copy(update={"categories": ("cs", "math")})
    server.add("/rss/cs+math", {}, Reply(503, b"down for maintenance", {"Retry-After": "0"}))
    assert main(["jobs", "run", "daily"], settings) == 1
    assert day_editions(database) == []
    page = client.get("/status").text
    assert "Job daily is failing since" in page
    assert "No announcement stored yet." in page

    serve_the_announcement(server)
    status = main(["jobs", "run", "daily"], settings)
    assert status == 2  # published; the API and HF knew none of the papers (partial)
    assert [e.edition_date.isoformat() for e in day_editions(database)] == [FEED_DAY]
    page = client.get("/status").text
    assert f"The edition of {FEED_DAY} (the newest announcement day) is published." in page


# Health judged against the clock: a frozen "now", Friday 19 December 2025 at noon in New York.
NOW = datetime(2025, 12, 19, 17, 0, tzinfo=UTC)
TODAY = date(2025, 12, 19)


def store_day(session: Session, day: date) -> None:
    session.add(
        Paper(
            arxiv_id=f"{day:%y%m}.{day.day:05d}",
            title="A paper",
            abstract="An abstract.",
            content_hash="0" * 64,
            announced_on=day,
        )
    )
    session.add(
        Edition(
            period="day",
            edition_date=day,
            version=1,
            scorer="baseline",
            scorer_version="1",
            algorithm_version="1",
            diversity_rule="none",
            pool_size=1,
            published_at=NOW,
        )
    )


def ran_ok(session: Session, job: str, at: datetime) -> None:
    session.add(
        JobRun(job=job, trigger="schedule", started_at=at, finished_at=at, status="ok", exit_code=0)
    )


def healthy_deployment(database: Database, day: date = TODAY) -> None:
    """The newest day stored and published, every job run ok an hour ago."""
    with session_scope(database.sessions) as session:
        store_day(session, day)
        for schedule in SCHEDULES:
            ran_ok(session, schedule.name, NOW - timedelta(hours=1))


def status_at(database: Database, settings: Settings, now: datetime = NOW) -> Status:
    with session_scope(database.sessions) as session:
        return gather(session, settings, now)


def test_a_deployment_with_todays_edition_and_every_job_ok_is_healthy(database: Database) -> None:
    healthy_deployment(database)
    status = status_at(database, database.settings)
    assert status.healthy
    assert status.stale_before is None


def test_one_missed_announcement_is_within_the_grace(database: Database) -> None:
    healthy_deployment(database, day=date(2025, 12, 18))
    assert status_at(database, database.settings).healthy


def test_data_months_older_than_the_calendar_expects_is_stale_and_unhealthy(
    database: Database, client: TestClient
) -> None:
    healthy_deployment(database, day=date(2025, 7, 1))
    status = status_at(database, database.settings)
    assert status.stale_before == date(2025, 12, 18)
    assert not status.healthy
    page = client.get("/status")
    assert page.status_code == 503
    assert "All well." not in page.text
    assert "Stale data: the newest stored announcement day is 2025-07-01" in page.text
    assert client.get("/status.json").json()["stale_before"] is not None


def test_a_job_that_never_succeeded_since_jobs_began_running_is_flagged(
    database: Database,
) -> None:
    with session_scope(database.sessions) as session:
        store_day(session, TODAY)
        ran_ok(session, "digests", NOW - timedelta(days=2))
    status = status_at(database, database.settings)
    overdue = {"daily", "signals", "mail", "prune", "discussion-mail"}
    assert {job.name for job in status.jobs if job.overdue} == overdue
    assert not status.healthy


def test_a_job_not_yet_due_since_jobs_began_is_not_flagged(database: Database) -> None:
    with session_scope(database.sessions) as session:
        store_day(session, TODAY)
        ran_ok(session, "digests", NOW - timedelta(minutes=10))
    status = status_at(database, database.settings)
    assert [job.name for job in status.jobs if job.overdue] == []
    assert status.healthy


def test_metrics_have_help_and_type_for_every_metric_and_no_zero_timestamps(
    client: TestClient,
) -> None:
    text = client.get("/metrics").text
    samples = [line for line in text.splitlines() if not line.startswith("#")]
    names = {line.split("{")[0].split(" ")[0] for line in samples}
    for name in names:
        assert f"# HELP {name} " in text
        assert f"# TYPE {name} gauge" in text
    # Nothing ever ran here: no last-success sample at all, rather than 1970.
    assert "paperboy_job_last_success_timestamp_seconds{" not in text
    assert 'paperboy_job_never_succeeded{job="daily"} 1' in text


def test_offline_mode_turns_the_network_jobs_off_and_does_not_call_old_data_stale(
    database: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    offline = database.settings.model_copy(update={"offline": True})
    with session_scope(database.sessions) as session:
        store_day(session, date(2025, 7, 1))
        for name in ("signals", "digests", "mail", "prune", "discussion-mail"):
            ran_ok(session, name, NOW - timedelta(days=3))
    status = status_at(database, offline)
    daily = status.jobs[0]
    assert (daily.name, daily.off, daily.overdue, daily.next_run) == ("daily", True, False, None)
    assert status.stale_before is None
    assert status.healthy
    assert [job.name for job in jobs_on(offline)] == [
        "signals",
        "digests",
        "mail",
        "prune",
        "discussion-mail",
    ]
    assert main(["jobs", "list"], offline) == 0
    assert "off (offline)" in next(
        line for line in capsys.readouterr().out.splitlines() if line.startswith("daily")
    )


def test_an_offline_deployment_refuses_to_run_the_daily_job_and_opens_no_incident(
    database: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    offline = database.settings.model_copy(update={"offline": True})
    assert main(["jobs", "run", "daily"], offline) == 1
    assert "off in offline mode" in capsys.readouterr().err
    assert status_at(database, offline).incidents == []


def test_an_acknowledged_incident_is_listed_as_such_and_is_not_unhealthy(
    ops_settings: Settings,
    database: Database,
    client: TestClient,
    capsys: pytest.CaptureFixture[str],
) -> None:
    healthy_deployment(database)
    with session_scope(database.sessions) as session:
        note_outcome(session, "digests", Outcome.FAILED, "SMTP refused", NOW)
    assert not status_at(database, ops_settings).healthy
    assert main(["incidents", "ack", "digests"], ops_settings) == 0
    assert "acknowledged" in capsys.readouterr().out
    status = status_at(database, ops_settings)
    assert status.healthy
    assert [incident.key for incident in status.acknowledged] == ["digests"]
    page = client.get("/status").text
    assert 'class="status-acknowledged">Job digests is failing since' in page
    assert 'role="alert">Job digests' not in page
    assert client.get("/status.json").json()["incidents"][0]["acknowledged"] is True
    assert "paperboy_acknowledged_incidents 1" in client.get("/metrics").text


def test_acknowledging_a_job_without_an_open_incident_says_so(
    ops_settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["incidents", "ack", "daily"], ops_settings) == 1
    assert "no open incident for 'daily'" in capsys.readouterr().err


def test_a_new_failure_after_recovery_needs_a_new_acknowledgement(
    ops_settings: Settings, database: Database
) -> None:
    with session_scope(database.sessions) as session:
        note_outcome(session, "digests", Outcome.FAILED, "SMTP refused", NOW)
        acknowledge(session, "digests", NOW)
        note_outcome(session, "digests", Outcome.OK, None, NOW + timedelta(hours=1))
        note_outcome(session, "digests", Outcome.FAILED, "SMTP refused", NOW + timedelta(hours=2))
    assert [i.key for i in status_at(database, ops_settings).unacknowledged] == ["digests"]


def _pgvector_installed(database: Database) -> bool:
    if database.engine.dialect.name != "postgresql":
        return False
    with database.engine.connect() as connection:
        found = connection.execute(text("SELECT 1 FROM pg_extension WHERE extname = 'vector'"))
        return found.first() is not None


def test_status_and_metrics_say_where_search_runs_and_show_the_pgvector_fallback(
    database: Database, client: TestClient
) -> None:
    postgres = database.engine.dialect.name == "postgresql"
    in_database = _pgvector_installed(database)
    fallback = postgres and not in_database
    metrics = client.get("/metrics").text
    assert f"paperboy_search_in_database {int(in_database)}\n" in metrics
    assert f"paperboy_search_fallback {int(fallback)}\n" in metrics
    expected = {(True, False): "fallback", (True, True): "database", (False, False): "process"}
    assert client.get("/status.json").json()["search"] == expected[postgres, in_database]
    page = client.get("/status").text
    if fallback:
        assert "pgvector is not installed" in page
    else:
        assert "pgvector is not installed" not in page


def test_a_job_that_never_ran_keeps_the_page_from_saying_all_well(
    database: Database, client: TestClient
) -> None:
    with session_scope(database.sessions) as session:
        store_day(session, TODAY)
        ran_ok(session, "digests", NOW - timedelta(minutes=10))
        ran_ok(session, "mail", NOW - timedelta(minutes=1))
        ran_ok(session, "discussion-mail", NOW - timedelta(minutes=1))
    status = status_at(database, database.settings)
    # Not yet due, so not failing (the status code keeps its meaning), but not known well.
    assert status.healthy and not status.all_well
    assert status.never_ran == ["daily", "signals", "prune"]
    page = client.get("/status").text
    assert "All well." not in page
    assert "daily, signals, prune have never run here" in page
    assert client.get("/status.json").json()["never_ran"] == ["daily", "signals", "prune"]


def test_every_job_run_and_healthy_is_all_well(database: Database) -> None:
    healthy_deployment(database)
    status = status_at(database, database.settings)
    assert status.never_ran == [] and status.all_well
