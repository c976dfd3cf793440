"""Integer parameters the database cannot hold: a path names nothing stored, a query is refused."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

# Past PostgreSQL's INTEGER, past SQLite's 64-bit INTEGER (its driver overflows), far past both.
TOO_LARGE = (2**31, 2**63, 2**64, -(2**63) - 1, 10**30)
TOPIC_PATHS = ("/api/topics/{}", "/topics/{}", "/feeds/topic/{}.rss", "/feeds/topic/{}.json")


@pytest.fixture(scope="module")
def lenient(client: TestClient) -> TestClient:
    """The filled site's client answering a server error with a 500 instead of raising it."""
    return TestClient(client.app, raise_server_exceptions=False)


@pytest.mark.parametrize("number", TOO_LARGE)
@pytest.mark.parametrize("template", TOPIC_PATHS)
def test_a_topic_id_too_large_for_the_database_is_not_found(
    lenient: TestClient, template: str, number: int
) -> None:
    response = lenient.get(template.format(number))
    assert response.status_code == 404


def test_a_topic_filter_too_large_for_the_database_is_refused(lenient: TestClient) -> None:
    response = lenient.get("/", params={"topic": 2**63})
    assert response.status_code == 400
    assert "topic" in response.text


@pytest.mark.parametrize("text", ["\u00b2", "\u0663", "1.0", "-1", "0"])
def test_a_topic_filter_that_is_not_a_plain_number_is_refused(
    lenient: TestClient, text: str
) -> None:
    response = lenient.get("/", params={"topic": text})
    assert response.status_code == 400
    assert "topic must be a topic" in response.text
