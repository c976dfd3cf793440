"""Fixtures of the live-ingest tests: a local server replaying recordings, and settings
that point every source at it with the politeness interval shrunk."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.core.config import Settings, get_settings
from ingest.live import Context, close, make_context
from tests.conftest import Database
from tests.ingest.recorded_server import RecordedServer, recorded_server

# Small enough for a fast suite, large enough to measure spacing against.
TEST_INTERVAL_SECONDS = 0.05


@pytest.fixture
def server() -> Iterator[RecordedServer]:
    with recorded_server() as running:
        yield running


@pytest.fixture
def live_settings(database: Database, server: RecordedServer) -> Settings:
    return get_settings(
        database_url=database.settings.database_url,
        data_dir=database.settings.data_dir,
        arxiv_rss_url=server.url,
        arxiv_api_url=f"{server.url}/api/query",
        arxiv_oai_url=f"{server.url}/oai",
        arxiv_author_feed_url=f"{server.url}/a",
        hf_api_url=f"{server.url}/api",
        hf_thumbnail_hosts=("127.0.0.1",),
        arxiv_min_interval_seconds=TEST_INTERVAL_SECONDS,
        arxiv_max_retries=2,
        arxiv_max_wait_seconds=0.2,
        http_timeout_seconds=2.0,
        contact_email="ops@example.org",
    )


@pytest.fixture
def context(live_settings: Settings, database: Database) -> Iterator[Context]:
    made = make_context(live_settings, database.engine)
    yield made
    close(made)
