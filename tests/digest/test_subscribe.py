import re
from datetime import timedelta
from email.message import EmailMessage
from zoneinfo import available_timezones

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.core.config import Settings
from app.core.models import Subscriber, UsedToken
from app.core.tokens import REPEAT_GRACE
from app.web.app import create_app
from tests.conftest import Database
from tests.digest.conftest import Clock, Smtp
from tests.digest.mail_links import press

FORM = {
    "email": "ada@example.org",
    "categories": ["cs.LG", "cs.CL"],
    "interests": "protein folding\ngraph neural networks",
    "frequency": "daily",
    "weekday": "0",
    "delivery_hour": "7",
    "time_zone": "Europe/Paris",
    "max_items": "5",
}


def subscribe(client: TestClient, **changes: object) -> str:
    page = client.get("/subscribe")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf is not None
    response = client.post("/subscribe", data={**FORM, **changes, "csrf": csrf.group(1)})
    return (
        response.text if response.status_code == 200 else f"{response.status_code} {response.text}"
    )


def link_in(message: EmailMessage, path: str) -> str:
    body = message.get_body(("plain",))
    assert body is not None
    found = re.search(rf"https://paperboy\.test{re.escape(path)}\?token=\S+", body.get_content())
    assert found is not None, body.get_content()
    return found.group(0)


def stored(database: Database) -> list[Subscriber]:
    with database.sessions() as session:
        return list(session.scalars(select(Subscriber)))


def test_subscribing_sends_one_confirmation_and_the_link_activates(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    assert "Check your inbox" in subscribe(client)
    [mail] = smtp.handler.to("ada@example.org")
    assert mail["Subject"] == "Confirm your Paperboy subscription"
    assert [s.status for s in stored(database)] == ["pending"]
    page = press(client, link_in(mail, "/subscribe/confirm"))
    assert page.status_code == 200 and "confirmed" in page.text
    [subscriber] = stored(database)
    assert (subscriber.status, subscriber.time_zone, subscriber.max_items) == (
        "active",
        "Europe/Paris",
        5,
    )
    assert subscriber.categories == ["cs.CL", "cs.LG"]


def test_the_answer_is_the_same_for_a_new_a_pending_and_an_active_address(
    client: TestClient, smtp: Smtp
) -> None:
    first = subscribe(client)
    second = subscribe(client)
    press(client, link_in(smtp.handler.to("ada@example.org")[0], "/subscribe/confirm"))
    third = subscribe(client)
    # Each answer links its own mail's status page, a random ticket; all else is the same.
    pages = [
        re.sub(r"/mail/[A-Za-z0-9_-]+", "/mail/TICKET", page) for page in (first, second, third)
    ]
    assert pages[0] == pages[1] == pages[2]
    # Asking again changes nothing: the mailbox is told, with the links that act.
    subjects = [mail["Subject"] for mail in smtp.handler.to("ada@example.org")]
    assert subjects == [
        "Confirm your Paperboy subscription",
        "Your Paperboy subscription is waiting for confirmation",
        "You already get Paperboy's digest",
    ]


def test_a_confirmation_link_works_once(client: TestClient, smtp: Smtp, clock: Clock) -> None:
    subscribe(client)
    link = link_in(smtp.handler.to("ada@example.org")[0], "/subscribe/confirm")
    assert press(client, link).status_code == 200
    clock.now += REPEAT_GRACE + timedelta(seconds=1)
    reused = press(client, link)
    assert reused.status_code == 400 and "used" in reused.text


def test_a_confirmation_link_pressed_again_moments_later_is_answered_as_the_first_was(
    client: TestClient, smtp: Smtp, clock: Clock, database: Database
) -> None:
    subscribe(client)
    link = link_in(smtp.handler.to("ada@example.org")[0], "/subscribe/confirm")
    confirmed_at = clock.now
    assert "confirmed" in press(client, link).text
    clock.now += timedelta(seconds=5)
    # The page opens again with its button, and pressing it confirms, changing nothing more.
    again = press(client, link)
    assert again.status_code == 200 and "Subscribed" in again.text
    [subscriber] = stored(database)
    assert (subscriber.status, subscriber.confirmed_at) == ("active", confirmed_at)
    with database.sessions() as session:
        assert session.scalar(select(func.count()).select_from(UsedToken)) == 1


def test_an_expired_confirmation_link_is_refused_and_the_address_stays_pending(
    client: TestClient, smtp: Smtp, clock: Clock, database: Database
) -> None:
    subscribe(client)
    link = link_in(smtp.handler.to("ada@example.org")[0], "/subscribe/confirm")
    clock.now += timedelta(hours=49)
    refused = press(client, link)
    assert refused.status_code == 400 and "expired" in refused.text
    assert [s.status for s in stored(database)] == ["pending"]


def test_a_tampered_link_is_refused(client: TestClient, smtp: Smtp, database: Database) -> None:
    subscribe(client)
    link = link_in(smtp.handler.to("ada@example.org")[0], "/subscribe/confirm")
    refused = press(client, link[:-3] + ("AAA" if not link.endswith("AAA") else "BBB"))
    assert refused.status_code == 400 and "tampered" in refused.text
    assert [s.status for s in stored(database)] == ["pending"]


def test_a_post_without_the_forms_csrf_token_is_refused_and_stores_nothing(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    response = client.post("/subscribe", data={**FORM, "csrf": "forged"})
    assert response.status_code == 403
    assert stored(database) == [] and smtp.handler.messages == []


def test_bad_input_gets_a_clear_error_and_stores_nothing(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    assert "spaces or control characters" in subscribe(client, email="not an address")
    assert "valid email address" in subscribe(client, email="no-at-sign.example.org")
    assert "time zone" in subscribe(client, time_zone="Mars/Olympus")
    assert "between 1 and 50" in subscribe(client, max_items="500")
    assert "control characters" in subscribe(client, email="a@b.org\r\nBcc: x@evil.org")
    assert stored(database) == [] and smtp.handler.messages == []


def test_subscribe_requests_are_rate_limited_per_address(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    answers = [subscribe(client) for _ in range(4)]
    assert answers[3].startswith("429")
    assert len(smtp.handler.to("ada@example.org")) == 3
    with database.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Subscriber)) == 1


def test_the_web_app_serves_the_subscription_pages(mail_settings: Settings) -> None:
    with TestClient(create_app(mail_settings)) as site:
        assert "Get trending papers in your inbox" in site.get("/subscribe").text
        assert "Nothing is shared or sold" in site.get("/privacy").text
        refused = site.get("/unsubscribe", params={"token": "nonsense"})
        assert refused.status_code == 400 and "does not work" in refused.text
        assert site.post("/unsubscribe", params={"token": "nonsense"}).status_code == 400


def test_the_time_zone_is_chosen_from_every_iana_zone_grouped_by_region(client: TestClient) -> None:
    page = client.get("/subscribe").text
    select = re.search(
        r'<select id="time_zone" name="time_zone" data-guess-zone.*?</select>', page, re.S
    )
    assert select is not None
    offered = re.findall(r'<option value="([^"]+)"', select.group(0))
    assert set(offered) == available_timezones() - {"localtime", "Factory"}
    assert len(offered) == len(set(offered))
    assert offered[0] == "UTC" and '<option value="UTC" selected>' in select.group(0)
    assert '<optgroup label="America">' in select.group(0)
    assert '<option value="America/New_York">America/New York</option>' in select.group(0)
    assert re.search(r'<script src="/static/timezone\.js\?v=[0-9a-f]+" defer></script>', page)


def test_categories_ticked_and_typed_are_stored_and_none_at_all_means_every_one(
    client: TestClient, database: Database
) -> None:
    subscribe(client, categories=["cs.CV"], other_categories="math.CO astro-ph.GA")
    subscribe(client, email="bo@example.org", categories=[], other_categories="")
    subscribe(client, email="cy@example.org", categories=[], other_categories="hep-th")
    chosen = {s.email: s.categories for s in stored(database)}
    assert chosen == {
        "ada@example.org": ["astro-ph.GA", "cs.CV", "math.CO"],
        "bo@example.org": ["cs.AI", "cs.CL", "cs.CV", "cs.LG"],
        "cy@example.org": ["hep-th"],
    }


def test_every_error_is_shown_beside_its_field_and_the_form_keeps_what_was_typed(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    answer = subscribe(
        client,
        email="no-at-sign.example.org",
        delivery_hour="25",
        time_zone="Mars/Olympus",
        followed_authors=["Nobody Known"],
        interests="graph rewiring",
    )
    assert answer.startswith("422")
    for field in ("email", "delivery_hour", "time_zone", "followed_authors"):
        assert f'id="error-{field}"' in answer, field
    # The summary at the top links to each field, in the order the form shows them.
    summary = re.search(r'class="error-summary".*?</ul>', answer, re.S)
    assert summary is not None
    linked = re.findall(r'href="#(\w+)"', summary.group(0))
    assert linked == ["email", "followed_authors", "delivery_hour", "time_zone"]
    assert (
        'id="delivery_hour" name="delivery_hour" min="0" max="23" inputmode="numeric" value="25"'
        in answer
    )
    assert 'aria-describedby="hint-delivery_hour error-delivery_hour" aria-invalid="true"' in answer
    assert 'value="no-at-sign.example.org"' in answer and "graph rewiring</textarea>" in answer
    assert '<option value="Mars/Olympus" selected>' in answer and "data-guess-zone" not in answer
    assert "no author on Paperboy is called &#39;Nobody Known&#39;" in answer
    assert stored(database) == [] and smtp.handler.messages == []
    assert "Check your inbox" in subscribe(client)  # the form sent back still works
