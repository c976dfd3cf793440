"""The OpenAPI document is a contract: valid, and every answer the server gives is described.

Schemathesis fuzzes the same document against a running server in ``.ci/schemathesis.sh``;
these tests pin the answers a reader relies on, one request per kind of answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from app.core.config import Settings
from tests.extremes import HUGE
from tests.ranking.explaining import AUTHORS, QUIET, UPVOTES
from tests.web.conftest import HF_PAPER, OLD_STYLE_ID
from tests.web.explained import PLAIN, TOP, WEEK, explained_site
from tests.web.helpers import a_topic_of

FEED_TYPES = {"rss": "application/rss+xml", "atom": "application/atom+xml"}
FEED_TYPES["json"] = "application/feed+json"


@pytest.fixture(scope="module")
def document(client: TestClient) -> dict[str, Any]:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def test_the_document_is_valid_openapi(document: dict[str, Any]) -> None:
    validate(document)  # raises OpenAPIValidationError with the path of what is wrong


@pytest.mark.parametrize(
    ("identifier", "documented"),
    [
        (f"{HF_PAPER}v9999", True),
        (f"arXiv:{OLD_STYLE_ID}v2", True),
        (f"{HF_PAPER}v12345", False),  # a version past the parser's bound
        (f"{HF_PAPER}v{HUGE}", False),
        ("2513.14133", False),  # month 13
    ],
)
def test_the_identifier_pattern_is_what_the_server_reads(
    document: dict[str, Any], client: TestClient, identifier: str, documented: bool
) -> None:
    """So schemathesis sends an over-long version as invalid input, which must be refused."""
    (parameter,) = document["paths"]["/api/papers/{arxiv_id}"]["get"]["parameters"]
    assert bool(re.search(parameter["schema"]["pattern"], identifier)) is documented
    assert (client.get(f"/api/papers/{identifier}").status_code == 400) is not documented


def test_no_operation_documents_an_answer_the_server_never_gives(
    document: dict[str, Any],
) -> None:
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            assert "422" not in answers, f"{method} {path}"
            for status, answer in answers.items():
                if status.startswith(("4", "5")):
                    schema = answer["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (path, status)
    assert "HTTPValidationError" not in document["components"]["schemas"]


def test_every_json_route_documents_its_answers_schema(document: dict[str, Any]) -> None:
    for path, operations in document["paths"].items():
        ok = operations["get"]["responses"]["200"]["content"]
        schemas = [media["schema"] for media in ok.values()]
        assert all(schema for schema in schemas), path


def _schema_of(document: dict[str, Any], path: str, status: int, media: str) -> dict[str, Any]:
    answer = document["paths"][path]["get"]["responses"][str(status)]
    return {**answer["content"][media]["schema"], "components": document["components"]}


REQUESTS = [
    ("/api/daily_papers", "/api/daily_papers", {}, 200),
    ("/api/daily_papers", "/api/daily_papers", {"week": "2025-W51", "sort": "trending"}, 200),
    ("/api/daily_papers", "/api/daily_papers", {"month": "2025-12", "sort": "publishedAt"}, 200),
    ("/api/daily_papers", "/api/daily_papers", {"date": "2025-13-01"}, 400),
    ("/api/daily_papers", "/api/daily_papers", {"date": "2020-01-06"}, 404),
    ("/api/daily_papers", "/api/daily_papers", {"limit": "many"}, 400),
    ("/api/papers/{arxiv_id}", f"/api/papers/{HF_PAPER}", {}, 200),
    ("/api/papers/{arxiv_id}", f"/api/papers/{OLD_STYLE_ID}", {}, 200),
    ("/api/papers/{arxiv_id}", "/api/papers/2512.00001", {}, 404),
    ("/api/papers/{arxiv_id}", "/api/papers/not-an-id", {}, 400),
    ("/api/papers/search", "/api/papers/search", {"q": "video diffusion"}, 200),
    ("/api/papers/search", "/api/papers/search", {"q": "x", "since": "soon"}, 400),
    ("/api/topics", "/api/topics", {}, 200),
    ("/api/topics/{topic_id}", "/api/topics/999999", {}, 404),
    ("/api/topics/{topic_id}", "/api/topics/one", {}, 400),
    ("/api/authors/{key}", "/api/authors/bolei-zhou", {}, 200),
    ("/api/authors/{key}", "/api/authors/nobody-at-all", {}, 404),
    ("/api/version", "/api/version", {}, 200),
]


@pytest.mark.parametrize(("template", "url", "params", "status"), REQUESTS)
def test_each_answer_matches_the_schema_documented_for_its_status(
    client: TestClient,
    document: dict[str, Any],
    template: str,
    url: str,
    params: dict[str, str],
    status: int,
) -> None:
    response = client.get(url, params=params)
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    schema = _schema_of(document, template, status, "application/json")
    errors = sorted(Draft202012Validator(schema).iter_errors(response.json()), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]


def test_a_topic_answer_matches_its_schema(
    client: TestClient, document: dict[str, Any], site_settings: Settings
) -> None:
    topic_id, _ = a_topic_of(site_settings, date(2025, 12, 19))
    response = client.get(f"/api/topics/{topic_id}")
    schema = _schema_of(document, "/api/topics/{topic_id}", 200, "application/json")
    assert not list(Draft202012Validator(schema).iter_errors(response.json()))


@pytest.fixture(scope="module")
def explained(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with explained_site(tmp_path_factory.mktemp("explained")) as client:
        yield client


def _valid(document: dict[str, Any], template: str, body: Any) -> Any:
    schema = _schema_of(document, template, 200, "application/json")
    errors = sorted(Draft202012Validator(schema).iter_errors(body), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]
    return body


EXPLANATION = [
    {"factor": "author_history", "text": AUTHORS, "value": 0.333333333},
    {"factor": "community", "text": UPVOTES, "value": 0.25},
    {"factor": "topic_momentum", "text": QUIET, "value": -0.4},
]


def test_items_carry_their_chance_and_explanation_as_documented(
    explained: TestClient, document: dict[str, Any]
) -> None:
    day = _valid(document, "/api/daily_papers", explained.get("/api/daily_papers").json())
    top = next(item for item in day if item["paper"]["id"] == TOP)
    assert (top["chance"], top["explanation"]) == (0.1235, EXPLANATION)
    assert top["score_components"] == {"prior": 2.0}
    plain = next(item for item in day if item["paper"]["id"] == PLAIN)
    assert (plain["chance"], plain["explanation"]) == (None, [])
    week = explained.get("/api/daily_papers", params={"week": WEEK}).json()
    week = _valid(document, "/api/daily_papers", week)
    assert {item["chance"] for item in week} == {None}
    detail = _valid(document, "/api/papers/{arxiv_id}", explained.get(f"/api/papers/{TOP}").json())
    places = {place["period"]: place for place in detail["editions"]}
    assert (places["day"]["chance"], places["day"]["explanation"]) == (0.1235, EXPLANATION)
    assert (places["week"]["chance"], places["week"]["explanation"]) == (None, EXPLANATION)


def test_chance_and_explanation_are_documented_and_always_present(
    client: TestClient, document: dict[str, Any]
) -> None:
    schemas = document["components"]["schemas"]
    for name in ("DailyPaper", "Appearance"):
        assert {"chance", "explanation"} <= set(schemas[name]["required"])
        assert "Hugging Face features it" in schemas[name]["properties"]["chance"]["description"]
    item = client.get("/api/daily_papers", params={"limit": 1}).json()[0]
    assert {"chance", "explanation"} <= set(item)


def test_a_schema_violation_would_be_caught(document: dict[str, Any]) -> None:
    """The check above is not vacuous: an item missing a required key, or carrying HF's
    absent key as null where the schema allows only a string, fails it."""
    schema = _schema_of(document, "/api/daily_papers", 200, "application/json")
    validator = Draft202012Validator(schema)
    assert list(validator.iter_errors([{"paper": {"id": "2512.14133"}}]))
    assert list(validator.iter_errors([{"unexpected": True}]))


@pytest.mark.parametrize("fmt", sorted(FEED_TYPES))
def test_feeds_document_the_media_type_they_serve(
    client: TestClient, document: dict[str, Any], fmt: str
) -> None:
    response = client.get(f"/feeds/daily.{fmt}")
    assert response.status_code == 200
    served = response.headers["content-type"].split(";")[0]
    assert served == FEED_TYPES[fmt]
    documented = document["paths"]["/feeds/daily.{fmt}"]["get"]["responses"]["200"]["content"]
    assert served in documented
    assert "application/json" not in documented
