"""A fresh deployment, migrated and holding no paper yet, answers every page without a 5xx.

Not under tests/web, whose package shares one filled database: this one needs it empty.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from app.web.app import create_app
from tests.conftest import Database

# Pages whose answer is 503 by design while nothing has run yet (they report on health).
HEALTH_PAGES = {"/status", "/status.json", "/readyz"}


@pytest.fixture
def empty_site(database: Database) -> Iterator[TestClient]:
    settings = database.settings.model_copy(
        update={"api_rate_limit_per_minute": 0, "search_semantic": False}
    )
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield client


def _plain_get_paths(database: Database) -> list[str]:
    routes = iter_route_contexts(create_app(database.settings).routes)
    return sorted(
        {r.path for r in routes if r.path and "GET" in (r.methods or ()) and "{" not in r.path}
    )


def test_every_page_of_an_empty_site_answers_without_a_server_error(
    empty_site: TestClient, database: Database
) -> None:
    paths = _plain_get_paths(database)
    assert "/search" in paths and "/" in paths
    for path in [*paths, "/search?q=transformers", "/api/papers/search?q=x"]:
        answer = empty_site.get(path)
        limit = 504 if path in HEALTH_PAGES else 500
        assert answer.status_code < limit, (path, answer.status_code, answer.text[:200])


@pytest.mark.parametrize("url", ["/authors/%00", "/search?q=%00", "/api/daily_papers?date=%00"])
def test_a_nul_in_a_url_is_a_400_not_a_database_error(empty_site: TestClient, url: str) -> None:
    answer = empty_site.get(url)
    assert answer.status_code == 400 and "NUL" in answer.text


def test_without_any_edition_a_date_is_not_found(empty_site: TestClient) -> None:
    missing = empty_site.get("/?date=2024-01-02")
    assert missing.status_code == 404 and "no day edition for 2024-01-02" in missing.text
