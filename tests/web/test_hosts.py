"""The Host header never shapes an answer: absolute URLs come from the public base URL, and
production answers only its own host (the health checks excepted). A real server each time:
the Host header is what a client sends, and only a client can forge it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from app.core.config import Settings
from app.web.app import create_app
from app.web.middleware.hosts import host_allowed
from app.web.middleware.security import security_headers
from tests.servers import served

FORGED = "evil.example"
PUBLIC = "https://papers.test"
SEARCH = "/api/papers/search?q=model&limit=5&page=2"


@pytest.fixture(scope="module")
def production(site_settings: Settings) -> Iterator[str]:
    settings = site_settings.model_copy(update={"env": "production", "public_base_url": PUBLIC})
    with served(create_app(settings)) as url:
        yield url


@pytest.fixture(scope="module")
def development(site_settings: Settings) -> Iterator[str]:
    settings = site_settings.model_copy(update={"public_base_url": PUBLIC})
    with served(create_app(settings)) as url:
        yield url


def test_a_forged_host_is_nowhere_in_the_search_apis_cached_answer(development: str) -> None:
    answer = httpx.get(f"{development}{SEARCH}", headers={"Host": FORGED})
    assert answer.status_code == 200 and "public" in answer.headers["cache-control"]
    assert FORGED not in str(answer.headers) and FORGED not in answer.text
    assert answer.headers["link"] == (
        f'<{PUBLIC}/api/papers/search?q=model&limit=5&page=1>; rel="prev", '
        f'<{PUBLIC}/api/papers/search?q=model&limit=5&page=3>; rel="next"'
    )


@pytest.mark.parametrize(
    "url", ["/", "/api/papers/search?q=model", "/feeds/daily.rss", "/sitemap.xml", "/nowhere"]
)
def test_production_refuses_any_other_host_in_a_small_plain_answer(
    production: str, url: str
) -> None:
    for forged in (FORGED, "papers.test.evil.example", "papers.test:8443", "127.0.0.1"):
        for method in ("GET", "HEAD", "POST"):
            answer = httpx.request(method, f"{production}{url}", headers={"Host": forged})
            assert answer.status_code == 400, (method, forged)
            assert answer.headers["content-type"].startswith("text/plain")
            assert forged not in answer.text and len(answer.content) < 200


def test_production_answers_its_own_host_in_any_case_and_with_its_default_port(
    production: str,
) -> None:
    for host in ("papers.test", "PAPERS.test", "papers.test:443"):
        assert httpx.get(f"{production}/", headers={"Host": host}).status_code == 200


def test_production_answers_the_health_checks_and_metrics_for_any_host(production: str) -> None:
    # A container's health check asks 127.0.0.1 (the Dockerfile's, compose.yaml's); a
    # Prometheus scrape asks the container's address.
    for path in ("/healthz", "/readyz", "/metrics"):
        assert httpx.get(f"{production}{path}").status_code == 200
        assert httpx.head(f"{production}{path}", headers={"Host": FORGED}).status_code == 200


def test_development_answers_any_host(development: str) -> None:
    # Tests and the demo serve 127.0.0.1 on a random port.
    assert httpx.get(f"{development}/").status_code == 200
    assert httpx.get(f"{development}/", headers={"Host": FORGED}).status_code == 200


@pytest.mark.parametrize(
    ("host", "public_base_url", "allowed"),
    [
        ("papers.test", "https://papers.test", True),
        ("Papers.Test:443", "https://papers.test/", True),
        ("papers.test:80", "https://papers.test", False),
        ("papers.test:8000", "http://papers.test:8000", True),
        ("papers.test", "http://papers.test:8000", False),
        ("[::1]:8000", "http://[::1]:8000", True),
        ("papers.test:bad", "https://papers.test", False),
        ("papers.test@evil.example", "https://papers.test", False),
        ("evil.example/papers.test", "https://papers.test", False),
        ("", "https://papers.test", False),
    ],
)
def test_only_the_public_base_urls_host_and_port_are_its_own(
    host: str, public_base_url: str, allowed: bool
) -> None:
    assert host_allowed([host], public_base_url) is allowed


def test_several_host_headers_are_allowed_only_when_each_is_the_sites() -> None:
    assert host_allowed(["papers.test", "papers.test"], PUBLIC)
    assert not host_allowed(["papers.test", FORGED], PUBLIC)
    assert not host_allowed([], PUBLIC)


def test_productions_refusal_of_another_host_carries_the_security_headers(production: str) -> None:
    answer = httpx.get(f"{production}/", headers={"Host": FORGED})
    assert answer.status_code == 400
    for name, value in security_headers(strict_transport=True).items():
        assert answer.headers.get(name) == value, name
    assert answer.headers["cache-control"] == "no-store"
