"""A database whose schema is missing (never migrated) answers 503 with what to do, as a page
or as JSON, never a bare 500."""

import os
from collections.abc import Iterator
from contextlib import nullcontext

import pytest
from fastapi.testclient import TestClient

from app.core.config import get_settings
from app.web.app import create_app
from tests.conftest import TEST_DATABASE_ENV
from tests.postgres import scratch_postgres_database

ADVICE = "the database schema is missing or out of date; run `paperboy migrate`"


@pytest.fixture(scope="module")
def unmigrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The web app on an empty database: SQLite, or a fresh one on the PostgreSQL server."""
    data_dir = tmp_path_factory.mktemp("unmigrated")
    server = os.environ.get(TEST_DATABASE_ENV)
    with scratch_postgres_database(server, "paperboy_empty") if server else nullcontext("") as url:
        settings = get_settings(data_dir=data_dir, database_url=url, search_semantic=False)
        with TestClient(create_app(settings), raise_server_exceptions=False) as client:
            yield client


@pytest.mark.parametrize("url", ["/", "/papers/2512.14133", "/search?q=diffusion", "/status"])
def test_a_page_of_an_unmigrated_database_says_to_migrate(unmigrated: TestClient, url: str) -> None:
    answer = unmigrated.get(url)
    assert answer.status_code == 503
    assert answer.headers["content-type"].startswith("text/html")
    assert ADVICE in answer.text


@pytest.mark.parametrize("url", ["/api/daily_papers", "/api/topics", "/feeds/daily.rss"])
def test_the_api_and_feeds_of_an_unmigrated_database_answer_json_503(
    unmigrated: TestClient, url: str
) -> None:
    answer = unmigrated.get(url)
    assert answer.status_code == 503
    assert answer.json() == {"error": {"status": 503, "message": ADVICE}}
