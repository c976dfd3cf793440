"""Readers of the site who never subscribed: rows in the status ``web``, never mailed."""

from app.core.config import Settings
from digest.accounts import reader
from digest.sending import send_digests
from tests.conftest import Database
from tests.digest.conftest import NOW, Smtp
from tests.digest.editions import DAY, add_subscriber, store_edition


def test_a_digest_run_mails_subscribers_and_never_a_reader_of_the_site(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org")
    with database.sessions.begin() as session:
        web = reader.reader_row(session, "bob@example.org", NOW)
        reader.save(session, web, "2603.00001", NOW)
    summary = send_digests(mail_settings, database.sessions, DAY, NOW)
    assert summary.counts == {"sent": 1, "pending": 0}
    assert [mail["To"] for mail in smtp.handler.messages] == ["ada@example.org"]
