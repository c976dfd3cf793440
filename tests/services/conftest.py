"""Fixtures of the scheduler tests: a real SMTP server for alerts, a local server for sources."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.core.config import Settings
from tests.conftest import Database
from tests.digest.conftest import Smtp, smtp
from tests.ingest.recorded_server import RecordedServer, recorded_server

ADMIN = "ops@paperboy.test"

__all__ = ["smtp"]


@pytest.fixture
def server() -> Iterator[RecordedServer]:
    with recorded_server() as running:
        yield running


@pytest.fixture
def ops_settings(database: Database, smtp: Smtp, server: RecordedServer) -> Settings:
    """Every source on the local server (which answers 404 unless told), alerts to ADMIN."""
    return database.settings.model_copy(
        update={
            "smtp_host": "127.0.0.1",
            "smtp_port": smtp.port,
            "admin_email": ADMIN,
            "public_base_url": "https://paperboy.test",
            "arxiv_rss_url": server.url,
            "arxiv_api_url": f"{server.url}/api/query",
            "arxiv_oai_url": f"{server.url}/oai",
            "arxiv_author_feed_url": f"{server.url}/a",
            "hf_api_url": f"{server.url}/api",
            "arxiv_min_interval_seconds": 0.0,
            "arxiv_max_retries": 0,
            "http_timeout_seconds": 2.0,
            "contact_email": "ops@paperboy.test",
        }
    )
