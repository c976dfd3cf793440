"""A client that sends requests through its own gate object; run in a thread or a process.

Kept apart from the test modules so that a spawned process imports only what it needs.
"""

from __future__ import annotations

from app.core.config import get_settings
from app.core.db import make_engine
from ingest.http import Gate, PoliteSession, get


def send_requests(database_url: str, url: str, count: int, interval: float) -> None:
    settings = get_settings(database_url=database_url, arxiv_min_interval_seconds=interval)
    engine = make_engine(settings)
    session = PoliteSession(settings, Gate(engine, interval=interval, lease=10.0))
    try:
        for _ in range(count):
            get(session, url)
    finally:
        session.close()
        engine.dispose()
