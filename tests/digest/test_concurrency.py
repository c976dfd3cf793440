import asyncio
import threading

from app.core.config import Settings
from app.core.db import make_engine, make_session_factory
from digest.sending import RunSummary, send_digests
from tests.conftest import Database
from tests.digest.conftest import NOW, Smtp
from tests.digest.editions import DAY, add_subscriber, store_edition

EMAILS = [f"reader{n:02d}@example.org" for n in range(16)]


def test_two_senders_at_once_split_the_work_with_no_duplicates(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    for email in EMAILS:
        add_subscriber(database.sessions, email)
    # A slow server keeps both senders busy at the same time.
    smtp.handler.on_rcpt = lambda _address: asyncio.sleep(0.01)
    summaries: list[RunSummary] = []

    def sender() -> None:
        # Each sender has its own engine and connections, as a second process would.
        engine = make_engine(mail_settings, role="worker")
        try:
            summaries.append(send_digests(mail_settings, make_session_factory(engine), DAY, NOW))
        finally:
            engine.dispose()

    threads = [threading.Thread(target=sender) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(m["To"] for m in smtp.handler.messages) == EMAILS
    assert sum(summary.counts.get("sent", 0) for summary in summaries) == len(EMAILS)
    assert all(summary.error is None for summary in summaries)
