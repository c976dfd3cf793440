"""HEAD works on every GET route (uptime monitors and link checkers use it): the GET's status
and headers, no body."""

import re

import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.web.app import create_app
from tests.web.conftest import HF_PAPER, LAST_DAY

# A value for each path parameter of the route table, so that most routes find something.
PARAMETERS = {
    "arxiv_id": HF_PAPER,
    "topic_id": "1",
    "key": "jose-perez",
    "category": "cs.LG",
    "fmt": "rss",
    "token": "not-a-token",
}


def get_paths(settings: Settings) -> list[str]:
    # The route table as FastAPI walks it for OpenAPI: included routers' routes too.
    routes = iter_route_contexts(create_app(settings).routes)
    paths = {_filled(r.path) for r in routes if r.path and "GET" in (r.methods or ())}
    return [*sorted(paths), "/static/paperboy.css"]


def _filled(path: str) -> str:
    return re.sub(r"{(\w+)(:\w+)?}", lambda m: PARAMETERS.get(m.group(1), "x"), path)


def test_the_route_table_has_get_routes_to_try(site_settings: Settings) -> None:
    assert {"/", "/readyz", "/status", f"/papers/{HF_PAPER}"} <= set(get_paths(site_settings))


@pytest.fixture(scope="module")
def paths(site_settings: Settings) -> list[str]:
    return get_paths(site_settings)


def test_head_answers_like_get_on_every_get_route_with_no_body(
    client: TestClient, paths: list[str]
) -> None:
    for path in paths:
        got, head = client.get(path), client.head(path)
        assert (path, head.status_code) == (path, got.status_code)
        assert head.content == b""
        assert head.headers.get("content-type") == got.headers.get("content-type")


def test_head_of_a_page_keeps_the_length_of_its_get(client: TestClient) -> None:
    url = f"/?date={LAST_DAY.isoformat()}"
    plain = {"Accept-Encoding": "identity"}
    got, head = client.get(url, headers=plain), client.head(url, headers=plain)
    assert head.status_code == 200
    assert head.headers["content-length"] == str(len(got.content))
    # Compressed, a HEAD names the length of the compressed GET.
    packed = {"Accept-Encoding": "br"}
    got, head = client.get(url, headers=packed), client.head(url, headers=packed)
    assert head.headers["content-encoding"] == got.headers["content-encoding"] == "br"
    assert head.headers["content-length"] == got.headers["content-length"]
