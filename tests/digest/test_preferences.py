import json
import re
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from accounts import links
from accounts.preferences import (
    MAX_NAMED,
    BadPreferencesError,
    Named,
    parse_preferences,
    topic_name,
)
from accounts.subscriptions import purge_unconfirmed
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import (
    Author,
    DigestFeedback,
    Edition,
    EditionItem,
    Subscriber,
    Topic,
    TopicDay,
    TopicStatus,
)
from digest.sending import send_digests
from tests.conftest import Database
from tests.digest.conftest import NOW, Clock, Smtp
from tests.digest.editions import DAY, add_subscriber, store_edition
from tests.digest.mail_links import press
from tests.digest.test_subscribe import link_in, subscribe

FIELDS = {
    "categories": ["cs.LG"],
    "interests": "",
    "exclusions": "",
    "frequency": "weekly",
    "weekday": "0",
    "delivery_hour": "6",
    "time_zone": "UTC",
    "max_items": "2",
}


def holder(database: Database, subscriber_id: int) -> Subscriber:
    with database.sessions() as session:
        subscriber = session.get(Subscriber, subscriber_id)
        assert subscriber is not None
        return subscriber


def one(database: Database) -> Subscriber:
    with database.sessions() as session:
        return session.scalars(select(Subscriber)).one()


def test_preferences_are_changed_paused_and_resumed_through_the_signed_link(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    subscriber_id = add_subscriber(database.sessions, "ada@example.org")
    token = links.preferences_url(mail_settings, holder(database, subscriber_id), NOW).split(
        "token="
    )[1]
    saved = client.post(
        "/subscriptions/preferences", data={**FIELDS, "token": token, "action": "pause"}
    )
    assert saved.status_code == 200
    stored = one(database)
    assert (stored.frequency, stored.max_items, stored.status) == ("weekly", 2, "paused")
    client.post("/subscriptions/preferences", data={**FIELDS, "token": token, "action": "resume"})
    assert one(database).status == "active"


def store_names(database: Database) -> None:
    """Two authors and two topics, as the site knows them (topic 12's label changed)."""
    with session_scope(database.sessions) as session:
        session.add_all(
            [
                Author(key="ada-lovelace", name="Ada Lovelace"),
                Author(key="jose-perez", name="José Pérez"),
            ]
        )
        for topic_id in (12, 40):
            session.add(Topic(id=topic_id, model="test", first_seen_on=DAY))
        session.flush()
        for topic_id, day, label in (
            (12, DAY - timedelta(days=1), "graphs, old label"),
            (12, DAY, "graph neural networks, message passing"),
            (40, DAY, "protein folding, diffusion"),
        ):
            session.add(
                TopicDay(
                    topic_id=topic_id,
                    day=day,
                    size=3,
                    window_size=3,
                    baseline=1.0,
                    momentum=0.0,
                    status=TopicStatus.NEW,
                    label=label,
                    centroid=b"",
                )
            )


def token_of(database: Database, settings: Settings, subscriber_id: int) -> str:
    return links.preferences_url(settings, holder(database, subscriber_id), NOW).split("token=")[1]


def test_topics_and_authors_are_chosen_by_name_and_stored_by_id_and_key(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    store_names(database)
    token = token_of(database, mail_settings, add_subscriber(database.sessions, "a@example.org"))
    follows = {
        "followed_authors": ["José Pérez", "ada lovelace", ""],
        "muted_topics": ["Protein folding, DIFFUSION", "graphs, old label", ""],
    }
    saved = client.post("/subscriptions/preferences", data={**FIELDS, **follows, "token": token})
    assert saved.status_code == 200, saved.text
    stored = one(database)
    assert stored.followed_authors == ["ada-lovelace", "jose-perez"]
    assert stored.muted_topics == [12, 40]
    page = client.get("/subscriptions/preferences", params={"token": token}).text
    named = re.findall(r'name="(followed_authors|muted_topics)" value="([^"]+)"', page)
    assert named == [
        ("muted_topics", "graph neural networks, message passing"),
        ("muted_topics", "protein folding, diffusion"),
        ("followed_authors", "Ada Lovelace"),
        ("followed_authors", "José Pérez"),
    ]
    # The recent topics are suggested by their latest label only.
    suggested = re.search(r'<datalist id="topic-suggestions">(.*?)</datalist>', page, re.S)
    assert suggested is not None
    assert re.findall(r'value="([^"]+)"', suggested.group(1)) == [
        "graph neural networks, message passing",
        "protein folding, diffusion",
    ]


def test_unknown_topics_and_authors_are_refused_by_name_and_nothing_stored_is_lost(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    store_names(database)
    reader = add_subscriber(
        database.sessions, "a@example.org", followed_authors=["old-key"], muted_topics=[40]
    )
    token = token_of(database, mail_settings, reader)
    sent = {
        "followed_authors": ["old-key", "Grace Hopper"],
        "followed_topics": ["Quantum gravity"],
        "max_items": "7",
    }
    refused = client.post("/subscriptions/preferences", data={**FIELDS, **sent, "token": token})
    assert refused.status_code == 422
    assert "no topic is called &#39;Quantum gravity&#39;" in refused.text
    assert "no author on Paperboy is called &#39;Grace Hopper&#39;" in refused.text
    assert 'aria-describedby="error-followed_topics"' in refused.text
    assert 'value="Grace Hopper"' in refused.text and 'value="7"' in refused.text  # kept
    stored = one(database)
    assert (stored.followed_authors, stored.muted_topics, stored.max_items) == (
        ["old-key"],
        [40],
        10,
    )
    # An author already followed stays acceptable, whether the site knows the name or not.
    kept = {"followed_authors": ["old-key"], "muted_topics": ["#40"]}
    saved = client.post("/subscriptions/preferences", data={**FIELDS, **kept, "token": token})
    assert saved.status_code == 200
    assert (one(database).followed_authors, one(database).muted_topics) == (["old-key"], [40])


def test_categories_are_ticked_or_typed_and_others_come_back_in_the_free_field(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    token = token_of(database, mail_settings, add_subscriber(database.sessions, "a@example.org"))
    chosen = {"categories": ["cs.LG"], "other_categories": "math.CO,  q-bio.BM"}
    client.post("/subscriptions/preferences", data={**FIELDS, **chosen, "token": token})
    assert one(database).categories == ["cs.LG", "math.CO", "q-bio.BM"]
    page = client.get("/subscriptions/preferences", params={"token": token}).text
    assert re.findall(r'name="categories" value="([^"]+)" checked', page) == ["cs.LG"]
    assert 'name="other_categories" value="math.CO, q-bio.BM"' in page
    bad = {"categories": ["cs.LG"], "other_categories": "maths!"}
    refused = client.post("/subscriptions/preferences", data={**FIELDS, **bad, "token": token})
    assert refused.status_code == 422 and "unknown arXiv category: &#39;maths!&#39;" in refused.text
    assert one(database).categories == ["cs.LG", "math.CO", "q-bio.BM"]


def test_the_stored_time_zone_is_selected_and_never_replaced_by_the_browsers(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    reader = add_subscriber(database.sessions, "a@example.org", time_zone="Asia/Kolkata")
    page = client.get(
        "/subscriptions/preferences", params={"token": token_of(database, mail_settings, reader)}
    )
    assert '<option value="Asia/Kolkata" selected>Asia/Kolkata</option>' in page.text
    assert "data-guess-zone" not in page.text and "timezone.js" not in page.text


def test_bad_preferences_are_refused_and_change_nothing(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    subscriber_id = add_subscriber(database.sessions, "ada@example.org")
    token = links.preferences_url(mail_settings, holder(database, subscriber_id), NOW).split(
        "token="
    )[1]
    bad_values: list[dict[str, object]] = [
        {"delivery_hour": "25"},
        {"frequency": "hourly"},
        {"categories": ["<script>"]},
        {"followed_topics": "graphs"},
    ]
    for bad in bad_values:
        response = client.post("/subscriptions/preferences", data={**FIELDS, **bad, "token": token})
        assert response.status_code == 422
        assert "&lt;script&gt;" in response.text or "<script>" not in response.text
    assert one(database).frequency == "daily"


def test_a_weekly_subscriber_gets_the_week_edition_on_their_weekday_only(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    _copy_as_week(database)
    add_subscriber(database.sessions, "monday@example.org", frequency="weekly", weekday=0)
    add_subscriber(database.sessions, "friday@example.org", frequency="weekly", weekday=4)
    send_digests(mail_settings, database.sessions, DAY, NOW)  # DAY is a Monday
    assert [m["To"] for m in smtp.handler.messages] == ["monday@example.org"]
    assert smtp.handler.messages[0]["Subject"].startswith("Paperboy week 2026-03-02")


def _copy_as_week(database: Database) -> None:
    with session_scope(database.sessions) as session:
        day = session.scalars(select(Edition)).one()
        week = Edition(
            period="week",
            edition_date=DAY,
            version=1,
            scorer="test",
            scorer_version="1",
            algorithm_version="1",
            diversity_rule="none",
            pool_size=3,
            published_at=day.published_at,
        )
        week.items = [
            EditionItem(
                position=i.position, arxiv_id=i.arxiv_id, score=i.score, components=i.components
            )
            for i in day.items
        ]
        session.add(week)


def test_an_empty_digest_is_not_sent_unless_asked_for(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "quiet@example.org", categories=["math.CO"])
    add_subscriber(database.sessions, "empty@example.org", categories=["math.CO"], send_empty=True)
    summary = send_digests(mail_settings, database.sessions, DAY, NOW)
    assert summary.counts == {"sent": 1, "skipped": 1, "pending": 0}
    [mail] = smtp.handler.messages
    assert mail["To"] == "empty@example.org" and "nothing matched" in mail["Subject"]


def test_unsubscribe_links_never_expire_while_feedback_links_last_their_days(
    client: TestClient, database: Database, mail_settings: Settings, clock: Clock
) -> None:
    store_edition(database.sessions)
    subscriber_id = add_subscriber(database.sessions, "ada@example.org")
    feedback = links.feedback_url(mail_settings, holder(database, subscriber_id), "2603.00001", NOW)
    unsubscribe, _ = links.unsubscribe_urls(mail_settings, holder(database, subscriber_id), NOW)
    clock.now = NOW + timedelta(days=60)
    assert press(client, feedback, "Less like this").status_code == 200
    clock.now = NOW + timedelta(days=91)
    expired = press(client, feedback)
    assert expired.status_code == 400
    assert "Feedback links work for 90 days and this one is older" in expired.text
    clock.now = NOW + timedelta(days=3650)
    assert client.post(unsubscribe).status_code == 200
    assert one(database).status == "unsubscribed"
    with database.sessions() as session:
        assert session.scalars(select(DigestFeedback.value)).all() == [-1]


def test_an_unsubscribed_address_can_subscribe_again_with_a_new_confirmation(
    client: TestClient, database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    subscriber_id = add_subscriber(database.sessions, "ada@example.org")
    unsubscribe, _ = links.unsubscribe_urls(mail_settings, holder(database, subscriber_id), NOW)
    client.post(unsubscribe)
    subscribe(client)
    assert one(database).status == "unsubscribed"  # until the mailbox's owner confirms
    press(client, link_in(smtp.handler.to("ada@example.org")[0], "/subscribe/confirm"))
    assert one(database).status == "active"


def test_a_subscriber_downloads_their_data_and_deletes_it_for_good(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    store_edition(database.sessions)
    subscriber_id = add_subscriber(database.sessions, "ada@example.org", interests="proteins")
    press(
        client,
        links.feedback_url(mail_settings, holder(database, subscriber_id), "2603.00002", NOW),
        "More like this",
    )
    token = links.preferences_url(mail_settings, holder(database, subscriber_id), NOW).split(
        "token="
    )[1]
    exported = client.get("/subscriptions/export", params={"token": token})
    data = json.loads(exported.text)
    assert exported.headers["cache-control"] == "private, no-store"
    assert data["email"] == "ada@example.org" and data["interests"] == "proteins"
    assert data["feedback"] == [{"arxiv_id": "2603.00002", "value": 1, "not_interested": False}]
    assert client.post("/subscriptions/delete", data={"token": token}).status_code == 200
    with database.sessions() as session:
        assert session.scalars(select(Subscriber)).all() == []
        assert session.scalars(select(DigestFeedback)).all() == []
    gone = client.get("/subscriptions/preferences", params={"token": token})
    assert gone.status_code == 400 and "deleted" in gone.text


def test_unconfirmed_sign_ups_are_purged_after_a_week(
    database: Database, mail_settings: Settings
) -> None:
    add_subscriber(
        database.sessions, "old@example.org", status="pending", created_at=NOW - timedelta(days=8)
    )
    add_subscriber(
        database.sessions, "new@example.org", status="pending", created_at=NOW - timedelta(days=6)
    )
    with session_scope(database.sessions) as session:
        assert purge_unconfirmed(session, mail_settings, NOW) == 1
    with database.sessions() as session:
        assert session.scalars(select(Subscriber.email)).all() == ["new@example.org"]


def test_the_subscribe_form_names_every_configured_category(client: TestClient) -> None:
    page = client.get("/subscribe").text
    assert re.findall(r'name="categories" value="([^"]+)"', page) == [
        "cs.AI",
        "cs.CL",
        "cs.CV",
        "cs.LG",
    ]


def test_a_feedback_link_with_an_unknown_choice_records_nothing(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    store_edition(database.sessions)
    subscriber_id = add_subscriber(database.sessions, "ada@example.org")
    link = links.feedback_url(mail_settings, holder(database, subscriber_id), "2603.00001", NOW)
    page = client.get(link)
    token = link.split("token=")[1]
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf is not None
    sent = {"token": token, "csrf": csrf[1], "value": "5"}
    assert client.post("/subscriptions/feedback", data=sent).status_code == 400
    with database.sessions() as session:
        assert session.scalars(select(DigestFeedback)).all() == []


def test_a_topic_is_named_by_its_label_in_any_case_or_by_its_number() -> None:
    assert topic_name("  Graph  Neural, NETWORKS ") == "graph neural, networks"
    assert topic_name("#12") == topic_name("12") == topic_name("# 12") == "#12"
    named = Named(
        {"followed_topics": ["Graphs", "#3", " "], "muted_authors": ["JOSÉ Pérez"]},
        topic_ids={"graphs": 7, "#3": 3},
        author_keys={"jose-perez"},
    )
    chosen = parse_preferences({}, [], named)
    assert (chosen.followed_topics, chosen.muted_authors) == ([3, 7], ["jose-perez"])
    too_many = Named({"muted_topics": [f"#{n}" for n in range(MAX_NAMED + 1)]})
    with pytest.raises(BadPreferencesError) as refused:
        parse_preferences({}, [], too_many)
    assert refused.value.errors == {"muted_topics": f"at most {MAX_NAMED} topics"}


def test_a_preferences_post_that_leaves_fields_out_keeps_what_they_hold(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    store_names(database)
    token = token_of(database, mail_settings, add_subscriber(database.sessions, "b@example.org"))
    chosen = {"interests": "graph neural networks", "followed_authors": ["ada lovelace"]}
    client.post("/subscriptions/preferences", data={**FIELDS, **chosen, "token": token})
    # A hand-made POST carrying one field: the others it leaves out stay as they were.
    saved = client.post("/subscriptions/preferences", data={"max_items": "5", "token": token})
    assert saved.status_code == 200, saved.text
    stored = one(database)
    assert (stored.max_items, stored.interests) == (5, "graph neural networks")
    assert (stored.followed_authors, stored.categories) == (["ada-lovelace"], ["cs.LG"])
    assert (stored.frequency, stored.delivery_hour) == ("weekly", 6)
    # Sent empty, a field clears what it holds.
    cleared = {**FIELDS, "interests": "", "followed_authors": [""], "token": token}
    client.post("/subscriptions/preferences", data=cleared)
    assert (one(database).interests, one(database).followed_authors) == ("", [])
