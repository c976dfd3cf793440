"""A signed link acts only on the subscription it was mailed for.

Before, links carried only ``subscribers.id``, and SQLite hands a deleted row's id to the next
sign-up: the old links of a reader who deleted themselves acted on a stranger.
"""

from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from accounts import links
from accounts.subscriptions import delete_everything
from app.core import tokens
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import DigestFeedback, Subscriber, Vote
from tests.conftest import Database
from tests.digest.conftest import NOW, Clock, Smtp
from tests.digest.editions import add_subscriber, store_edition
from tests.digest.mail_links import press
from tests.digest.test_subscribe import link_in, stored, subscribe
from tests.digest.test_voting import sign_in


def _row(database: Database, subscriber_id: int) -> Subscriber:
    with database.sessions() as session:
        subscriber = session.get(Subscriber, subscriber_id)
        assert subscriber is not None
        return subscriber


def _delete(database: Database, subscriber_id: int) -> None:
    with session_scope(database.sessions) as session:
        delete_everything(session, _attached(session, subscriber_id))


def _attached(session: Session, subscriber_id: int) -> Subscriber:
    subscriber = session.get(Subscriber, subscriber_id)
    assert subscriber is not None
    return subscriber


def test_a_deleted_subscribers_id_is_never_given_to_the_next_sign_up(database: Database) -> None:
    first = add_subscriber(database.sessions, "ada@example.org")
    _delete(database, first)
    assert add_subscriber(database.sessions, "bob@example.org") > first


def test_old_links_of_a_deleted_subscriber_never_act_on_a_new_one_with_the_same_id(
    client: TestClient, database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    subscribe(client)
    [ada_pending] = stored(database)
    confirm_link = link_in(smtp.handler.to("ada@example.org")[0], "/subscribe/confirm")
    old = _row(database, ada_pending.id)
    preferences = links.preferences_url(mail_settings, old, NOW)
    unsubscribe, _ = links.unsubscribe_urls(mail_settings, old, NOW)
    feedback = links.feedback_url(mail_settings, old, "2603.00001", NOW)
    _delete(database, old.id)
    # Whatever makes an id come back (a restored backup, a reset sequence): the same id.
    add_subscriber(database.sessions, "stranger@example.org", status="pending", id=old.id)

    for link in (confirm_link, preferences, feedback):
        refused = press(client, link)
        assert refused.status_code == 400 and "deleted" in refused.text
    assert client.post(unsubscribe).status_code == 400
    export = client.get("/subscriptions/export", params={"token": preferences.split("=")[-1]})
    assert export.status_code == 400 and "stranger" not in export.text
    assert _row(database, old.id).status == "pending"


def test_an_address_that_subscribes_again_after_leaving_starts_with_new_links(
    client: TestClient, database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    first = _row(database, add_subscriber(database.sessions, "ada@example.org"))
    old_unsubscribe, _ = links.unsubscribe_urls(mail_settings, first, NOW)
    assert client.post(old_unsubscribe).status_code == 200
    subscribe(client)
    confirm = link_in(smtp.handler.to("ada@example.org")[-1], "/subscribe/confirm")
    assert press(client, confirm).status_code == 200
    assert _row(database, first.id).status == "active"
    # The link of the subscription that ended does not end the new one.
    assert client.post(old_unsubscribe).status_code == 400
    assert _row(database, first.id).status == "active"


def test_a_link_mailed_before_links_carried_a_key_works_for_its_own_subscription_only(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    ada = add_subscriber(database.sessions, "ada@example.org", created_at=NOW)
    legacy = tokens.issue(mail_settings.secret_key, links.UNSUBSCRIBE, str(ada), NOW)
    older = tokens.issue(
        mail_settings.secret_key, links.UNSUBSCRIBE, str(ada), NOW - timedelta(days=1)
    )
    assert client.post("/unsubscribe", params={"token": older}).status_code == 400
    assert _row(database, ada).status == "active"
    assert client.post("/unsubscribe", params={"token": legacy}).status_code == 200
    assert _row(database, ada).status == "unsubscribed"


def test_deleting_an_address_signs_it_out_and_voids_its_sign_in_links(
    client: TestClient, database: Database, mail_settings: Settings, smtp: Smtp, clock: Clock
) -> None:
    store_edition(database.sessions)
    ada = _row(database, add_subscriber(database.sessions, "Ada@example.org"))
    assert press(client, sign_in(client, smtp, "ada@example.org")).status_code == 200
    assert client.post("/votes/2603.00001").status_code == 200
    unused_link = sign_in(client, smtp, "ADA@example.org")
    preferences = links.preferences_url(mail_settings, ada, NOW).split("token=")[1]
    assert client.post("/subscriptions/delete", data={"token": preferences}).status_code == 200

    assert client.post("/votes/2603.00002").status_code == 401
    refused = press(client, unused_link)
    assert refused.status_code == 400 and "deleted" in refused.text
    with database.sessions() as session:
        assert session.scalars(select(Vote)).all() == []
        assert session.scalars(select(DigestFeedback)).all() == []
    # The address starts fresh: a new sign-in works.
    clock.now += timedelta(minutes=1)
    assert press(client, sign_in(client, smtp, "ada@example.org")).status_code == 200
    assert client.post("/votes/2603.00002").json()["votes"] == 1
