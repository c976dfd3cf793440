"""Readers of the site who never subscribed: rows in the status ``web``, never mailed."""

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

from accounts import links, reader, signin
from accounts.addresses import parse_address
from accounts.preferences import parse_preferences
from accounts.subscriptions import purge_unconfirmed, request_subscription
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import SubscriberStatus
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


def test_a_web_readers_unconfirmed_subscription_goes_back_to_web_with_their_reading_list(
    database: Database, mail_settings: Settings
) -> None:
    store_edition(database.sessions)
    with session_scope(database.sessions) as session:
        key = signin.key_for(session, "bob@example.org", NOW - timedelta(days=9))
        link = links.signin_url(mail_settings, "bob@example.org", key, NOW - timedelta(days=9))
        signin.spend_link(
            session, mail_settings, _token(link), NOW - timedelta(days=9), nonce="a browser"
        )
        web = reader.reader_row(session, "bob@example.org", NOW - timedelta(days=9))
        reader.save(session, web, "2603.00001", NOW - timedelta(days=9))
        preferences = parse_preferences({}, [])
        address = parse_address("bob@example.org")
        asked = request_subscription(
            session,
            mail_settings,
            address,
            preferences,
            "test",
            NOW - timedelta(days=8),
            holder="bob@example.org",
        )
        assert asked is not None and asked.status == SubscriberStatus.PENDING
    add_subscriber(
        database.sessions, "eve@example.org", status="pending", created_at=NOW - timedelta(days=8)
    )
    with session_scope(database.sessions) as session:
        assert purge_unconfirmed(session, mail_settings, NOW) == 1
        kept = reader.find(session, "bob@example.org")
        assert kept is not None and kept.status == SubscriberStatus.WEB
        assert reader.saved_ids(session, kept.id) == ["2603.00001"]
        assert reader.find(session, "eve@example.org") is None


def _token(link: str) -> str:
    return parse_qs(urlsplit(link).query)["token"][0]
