"""Strict-Transport-Security: sent on every response in production behind https, never else
(a browser that saw it refuses plain http to the host for a year)."""

import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.web.app import create_app

HSTS = "max-age=31536000; includeSubDomains"
URLS = ("/", "/api/daily_papers", "/feeds/daily.rss", "/papers/2512.00000", "/static/paperboy.css")


def served(settings: Settings, **changes: object) -> TestClient:
    return TestClient(create_app(settings.model_copy(update=changes)))


@pytest.mark.parametrize("url", URLS)
def test_production_behind_https_sends_strict_transport_security_on_every_response(
    site_settings: Settings, url: str
) -> None:
    with served(site_settings, env="production", public_base_url="https://papers.test") as client:
        assert client.get(url).headers["strict-transport-security"] == HSTS


@pytest.mark.parametrize(
    ("env", "public_base_url"),
    [("development", "https://papers.test"), ("production", "http://papers.test")],
)
def test_no_strict_transport_security_in_development_or_over_plain_http(
    site_settings: Settings, env: str, public_base_url: str
) -> None:
    with served(site_settings, env=env, public_base_url=public_base_url) as client:
        assert "strict-transport-security" not in client.get("/").headers
