"""Strict-Transport-Security: sent on every response in production behind https, never else
(a browser that saw it refuses plain http to the host for a year); a page opened by a token
sends only the site's origin as Referer."""

import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.web.app import create_app

HSTS = "max-age=31536000; includeSubDomains"
URLS = ("/", "/api/daily_papers", "/feeds/daily.rss", "/papers/2512.00000", "/static/paperboy.css")


def served(settings: Settings, **changes: object) -> TestClient:
    changed = settings.model_copy(update=changes)
    # Production answers for its public host only: the client asks for that one.
    return TestClient(create_app(changed), base_url=changed.public_base_url)


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


def test_a_page_opened_by_a_token_never_passes_its_address_on_as_a_referer(
    site_settings: Settings,
) -> None:
    # Its styles, scripts and forms would carry the token to a proxy's access log.
    tokened = ("/subscriptions/preferences?token=x", "/unsubscribe?from=mail&token=x")
    with served(site_settings) as client:
        for url in tokened:
            assert client.get(url).headers["referrer-policy"] == "strict-origin"
        assert client.get("/").headers["referrer-policy"] == "strict-origin-when-cross-origin"
        assert client.get("/?tokens=x").headers["referrer-policy"] == (
            "strict-origin-when-cross-origin"
        )
