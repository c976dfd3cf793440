"""``/readyz``, ``/status`` and ``/metrics``; and the daily chain: a failed ingest publishes
nothing and the status page says so, the next run repairs it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.cli import main
from app.config import Settings, get_settings
from app.main import create_app
from app.models import Edition
from tests.conftest import FIXTURES, Database
from tests.ingest.recorded_server import RecordedServer, Reply
from tests.ingest.test_rss import feed_reply

EMPTY_API = (FIXTURES / "arxiv_api" / "id_0000.0000_s0_m100_8b51d9633a68.xml").read_bytes()
HF_PAGE = (FIXTURES / "hf_daily" / "daily_papers_2025-11-03.json").read_bytes()
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
    assert answer.json() == {"status": "schema out of date", "schema": None, "head": "0007"}


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
    assert [job["name"] for job in report["jobs"]] == ["daily", "signals", "digests"]
    assert report["jobs"][1]["last_result"] == "failed"
    assert report["jobs"][1]["last_success"] is None
    assert report["incidents"][0]["job"] == "signals"
    metrics = client.get("/metrics").text
    assert "paperboy_open_incidents 1\n" in metrics
    assert 'paperboy_items{kind="papers"} 0\n' in metrics


def serve_the_announcement(server: RecordedServer) -> None:
    server.add("/rss/cs+math", {}, feed_reply("2023-10-26_rss__cs+math.xml"))
    query = {
        "search_query": "", "id_list": FEED_IDS, "sortBy": "relevance",
        "sortOrder": "descending", "start": "0", "max_results": "100",
    }  # fmt: skip
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
