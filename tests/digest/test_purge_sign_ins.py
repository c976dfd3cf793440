"""The purge of unconfirmed sign-ups spares a mailbox only once its owner opened a sign-in link.

Before, asking for a sign-in link was enough: a stranger who subscribed an address and asked a
link for it (never opened) kept the address stored for good, as a reader of the site.
"""

from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy import select

from accounts import reader
from accounts.subscriptions import purge_unconfirmed
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import SignInKey, SubscriberStatus
from tests.conftest import Database
from tests.digest.conftest import Clock, Smtp
from tests.digest.editions import store_edition
from tests.digest.mail_links import press
from tests.digest.test_subscribe import link_in, stored, subscribe
from tests.digest.test_voting import sign_in

A_WEEK_AND_A_DAY = timedelta(days=8)


def _purge(database: Database, settings: Settings, clock: Clock) -> int:
    with session_scope(database.sessions) as session:
        return purge_unconfirmed(session, settings, clock.now)


def test_a_stranger_asking_a_sign_in_link_does_not_keep_an_unconfirmed_address(
    client: TestClient, smtp: Smtp, database: Database, mail_settings: Settings, clock: Clock
) -> None:
    assert "Check your inbox" in subscribe(client)
    assert sign_in(client, smtp)  # mailed to ada@, never opened
    clock.now += A_WEEK_AND_A_DAY
    assert _purge(database, mail_settings, clock) == 1
    assert stored(database) == []


def test_a_reader_who_opened_their_link_keeps_their_reading_list_past_the_purge(
    client: TestClient, smtp: Smtp, database: Database, mail_settings: Settings, clock: Clock
) -> None:
    store_edition(database.sessions)
    assert press(client, sign_in(client, smtp)).status_code == 200
    assert client.post("/papers/2603.00001/save", follow_redirects=False).status_code == 303
    assert "Check your inbox" in subscribe(client)  # signed in: their own request
    [row] = stored(database)
    assert row.status == SubscriberStatus.PENDING
    clock.now += A_WEEK_AND_A_DAY
    assert _purge(database, mail_settings, clock) == 0
    [row] = stored(database)
    assert row.status == SubscriberStatus.WEB
    with database.sessions() as session:
        assert reader.saved_ids(session, row.id) == ["2603.00001"]
    assert _signed_in_at(database) == [clock.now - A_WEEK_AND_A_DAY]
    exported = client.get("/for-you/data.json").json()
    assert exported["signed_in_at"] == (clock.now - A_WEEK_AND_A_DAY).isoformat()


def test_a_confirmed_subscriber_with_an_unopened_sign_in_link_is_never_purged(
    client: TestClient, smtp: Smtp, database: Database, mail_settings: Settings, clock: Clock
) -> None:
    assert "Check your inbox" in subscribe(client)
    confirmation = link_in(smtp.handler.to("ada@example.org")[-1], "/subscribe/confirm")
    assert press(client, confirmation).status_code == 200
    assert sign_in(client, smtp)
    clock.now += A_WEEK_AND_A_DAY * 10
    assert _purge(database, mail_settings, clock) == 0
    assert [row.status for row in stored(database)] == [SubscriberStatus.ACTIVE]


def test_only_an_opened_sign_in_link_marks_the_mailbox_signed_in_and_the_first_one_counts(
    client: TestClient, smtp: Smtp, database: Database, clock: Clock
) -> None:
    link = sign_in(client, smtp)
    assert _signed_in_at(database) == [None]
    assert client.get(link).status_code == 200  # a mail scanner's GET spends nothing
    assert _signed_in_at(database) == [None]
    first = clock.now
    assert press(client, link).status_code == 200
    clock.now += timedelta(minutes=5)
    assert press(client, sign_in(client, smtp)).status_code == 200
    assert _signed_in_at(database) == [first]


def _signed_in_at(database: Database) -> list[object]:
    with database.sessions() as session:
        return list(session.scalars(select(SignInKey.signed_in_at)))
