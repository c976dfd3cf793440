"""Subscribing an address Paperboy already holds: anyone can type an address, so the request
changes nothing stored; the mailbox gets a mail whose links (signed, sent only there) act.

Before, a second request rewrote a pending or web-only reader's preferences (categories,
interests, schedule, delivery address) for whoever typed the address.
"""

from email.message import EmailMessage

from fastapi.testclient import TestClient

from accounts import reader
from app.core.db import session_scope
from app.core.models import Subscriber, SubscriberStatus
from tests.conftest import Database
from tests.digest.conftest import NOW, Smtp
from tests.digest.editions import add_subscriber, store_edition
from tests.digest.mail_links import press
from tests.digest.test_subscribe import link_in, stored, subscribe
from tests.digest.test_voting import sign_in

STRANGER = {
    "email": "ADA@example.org",
    "categories": ["hep-th"],
    "interests": "cryptocurrency",
    "time_zone": "Pacific/Kiritimati",
    "max_items": "50",
    "delivery_hour": "3",
}


def _settings_of(row: Subscriber) -> tuple[object, ...]:
    return (
        row.email,
        row.categories,
        row.interests,
        row.time_zone,
        row.max_items,
        row.delivery_hour,
        row.followed_topics,
    )


def _one(database: Database) -> Subscriber:
    [row] = stored(database)
    return row


def _text(mail: EmailMessage) -> str:
    body = mail.get_body(("plain",))
    assert body is not None
    return str(body.get_content())


def test_a_second_request_leaves_a_pending_subscription_as_its_owner_asked(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    assert "Check your inbox" in subscribe(client)
    before = _settings_of(_one(database))
    assert "Check your inbox" in subscribe(client, **STRANGER)
    assert _settings_of(_one(database)) == before
    _first, second = smtp.handler.to("ada@example.org")
    assert second["Subject"] == "Your Paperboy subscription is waiting for confirmation"
    assert "nothing was changed" in _text(second)
    # Either link confirms the owner's own choices, never the stranger's.
    assert press(client, link_in(second, "/subscribe/confirm")).status_code == 200
    assert _one(database).status == SubscriberStatus.ACTIVE
    assert _settings_of(_one(database)) == before
    assert link_in(second, "/subscriptions/preferences")


def test_a_stranger_cannot_subscribe_a_web_reader_or_change_what_they_keep(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    store_edition(database.sessions)
    with session_scope(database.sessions) as session:
        web = reader.reader_row(session, "ada@example.org", NOW)
        reader.save(session, web, "2603.00001", NOW)
        web.followed_topics = [7]
    before = _settings_of(_one(database))
    assert "Check your inbox" in subscribe(client, **STRANGER)
    row = _one(database)
    assert (row.status, _settings_of(row)) == (SubscriberStatus.WEB, before)
    [mail] = smtp.handler.to("ada@example.org")
    assert mail["Subject"] == "Start your Paperboy digest?"
    assert "sign in" in _text(mail)
    assert client.get(link_in(mail, "/subscriptions/preferences")).status_code == 200
    assert press(client, link_in(mail, "/subscribe/confirm")).status_code == 200
    row = _one(database)
    assert (row.status, _settings_of(row)) == (SubscriberStatus.ACTIVE, before)
    with database.sessions() as session:
        assert reader.saved_ids(session, row.id) == ["2603.00001"]


def test_a_signed_in_reader_subscribes_their_own_address_with_the_forms_choices(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    store_edition(database.sessions)
    with session_scope(database.sessions) as session:
        reader.reader_row(session, "ada@example.org", NOW).followed_topics = [7]
    assert press(client, sign_in(client, smtp)).status_code == 200
    assert "Check your inbox" in subscribe(client)
    row = _one(database)
    assert (row.status, row.time_zone, row.max_items) == ("pending", "Europe/Paris", 5)
    assert row.followed_topics == [7]
    mail = smtp.handler.to("ada@example.org")[-1]
    assert mail["Subject"] == "Confirm your Paperboy subscription"
    # Signed in as someone else, a request for this address is a stranger's.
    client.cookies.clear()
    assert press(client, sign_in(client, smtp, "eve@example.org")).status_code == 200
    subscribe(client, **STRANGER)
    assert (_one(database).time_zone, _one(database).max_items) == ("Europe/Paris", 5)


def test_an_active_subscriber_asking_again_gets_their_preferences_link_and_nothing_changes(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    add_subscriber(database.sessions, "ada@example.org", interests="proteins")
    before = _settings_of(_one(database))
    assert "Check your inbox" in subscribe(client, **STRANGER)
    assert _settings_of(_one(database)) == before and _one(database).status == "active"
    [mail] = smtp.handler.to("ada@example.org")
    assert mail["Subject"] == "You already get Paperboy's digest"
    page = client.get(link_in(mail, "/subscriptions/preferences"))
    assert page.status_code == 200 and "proteins" in page.text
    assert "/subscribe/confirm" not in _text(mail)


def test_a_stranger_cannot_restart_an_ended_subscription_so_the_purge_never_deletes_it(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org", status="unsubscribed")
    with session_scope(database.sessions) as session:
        found = reader.find(session, "ada@example.org")
        assert found is not None
        reader.save(session, found, "2603.00001", NOW)
    before = _settings_of(_one(database))
    subscribe(client, **STRANGER)
    row = _one(database)
    assert (row.status, _settings_of(row)) == (SubscriberStatus.UNSUBSCRIBED, before)
    [mail] = smtp.handler.to("ada@example.org")
    assert mail["Subject"] == "Start your Paperboy digest again?"
    assert press(client, link_in(mail, "/subscribe/confirm")).status_code == 200
    assert _one(database).status == SubscriberStatus.ACTIVE
