"""What readers and attackers type or send: never a 500, never a stored row on an error,
one mailbox one subscriber, and mail links that a scanner may open."""

import asyncio
import re
import threading
import time
from datetime import timedelta

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from accounts import links
from app.core import tokens
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import Author, DigestFeedback, Subscriber, UsedToken
from app.web.app import create_app
from digest.sending import send_digests
from tests.conftest import Database
from tests.digest.conftest import NOW, Smtp
from tests.digest.editions import DAY, add_subscriber, store_edition
from tests.digest.mail_links import press
from tests.digest.test_subscribe import FORM, link_in, stored, subscribe
from tests.digest.test_voting import sign_in
from tests.servers import served

NON_ASCII_TOKENS = ("é", "ключ.подпись", "eyJwIjoi\u00ff.abc", "\u202e.\u202c", "a" * 5000)


def _with_cookie(name: str, value: str) -> dict[bytes, bytes]:
    # httpx refuses non-ASCII header text; a raw client sends the bytes anyway.
    return {b"cookie": f"{name}={value}".encode()}


def _cookieless(client: TestClient) -> TestClient:
    return TestClient(client.app, base_url="https://paperboy.test")


@pytest.mark.parametrize("token", NON_ASCII_TOKENS)
def test_a_non_ascii_or_oversized_token_is_refused_with_a_page_not_a_500(
    client: TestClient, token: str
) -> None:
    pages = (
        "/subscribe/confirm",
        "/subscriptions/preferences",
        "/unsubscribe",
        "/subscriptions/feedback?value=1&",
        "/signin/confirm",
        "/subscriptions/export",
    )
    for path in pages:
        joiner = "" if path.endswith("&") else "?"
        answer = client.get(f"{path}{joiner}token={token}")
        assert answer.status_code == 400, path
        assert "This link does not work" in answer.text
    for path in ("/unsubscribe", "/subscriptions/preferences", "/subscriptions/delete"):
        assert client.post(path, data={"token": token, **FORM}).status_code == 400, path


def test_a_non_ascii_csrf_field_or_cookie_is_refused_with_400(
    client: TestClient, database: Database
) -> None:
    client.get("/subscribe")
    answer = client.post("/subscribe", data={**FORM, "csrf": "é" * 64})
    assert answer.status_code == 400 and "Form expired" in answer.text
    headers = _with_cookie("paperboy_csrf", "nonce-é")
    raw = _cookieless(client).post("/subscribe", data={**FORM, "csrf": "x"}, headers=headers)
    assert raw.status_code == 403
    assert stored(database) == []


def test_a_non_ascii_session_cookie_is_not_signed_in(client: TestClient) -> None:
    headers = _with_cookie("paperboy_session", "é.é")
    answer = _cookieless(client).post("/votes/2603.00001", headers=headers)
    assert answer.status_code == 401


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("josé@example.org", "plain ASCII"),
        ("ada\x00@example.org", "control characters"),
        ("ada@example.org\x07", "control characters"),
        ("ada\u200b@example.org", "control characters"),
        ("ada@exam ple.org", "spaces"),
        ("ada..lovelace@example.org", "not a valid mailbox"),
        ("ada@localhost", "not a valid domain"),
    ],
)
def test_an_address_the_rule_refuses_gets_a_422_that_says_why_and_stores_nothing(
    client: TestClient, smtp: Smtp, database: Database, address: str, reason: str
) -> None:
    answer = subscribe(client, email=address)
    assert answer.startswith("422") and reason in answer
    assert stored(database) == [] and smtp.handler.messages == []


def test_an_internationalised_domain_is_stored_in_its_ascii_form(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    assert "Check your inbox" in subscribe(client, email="ada@bücher.example")
    assert [s.email for s in stored(database)] == ["ada@xn--bcher-kva.example"]
    assert smtp.handler.to("ada@xn--bcher-kva.example")


def test_letter_case_does_not_make_another_subscriber_or_another_mail(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    spellings = ("Bob@example.org", "BOB@example.org", "bOb@Example.ORG", "bob@example.org")
    answers = [subscribe(client, email=spelling) for spelling in spellings]
    assert answers[3].startswith("429")
    [bob] = stored(database)
    assert (bob.email_key, bob.email) == ("bob@example.org", "Bob@example.org")
    assert len(smtp.handler.messages) == 3
    # Mail goes to the address as first typed: a later request changes nothing stored.
    assert smtp.handler.messages[-1]["To"] == "Bob@example.org"


def test_letter_case_does_not_sign_in_as_another_voter(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    store_edition(database.sessions)
    press(client, sign_in(client, smtp, "Ada@example.org"))
    client.post("/votes/2603.00001")
    press(client, sign_in(client, smtp, "ADA@example.org"))
    assert client.post("/votes/2603.00001").json()["votes"] == 1


def _links_in_every_mail(smtp: Smtp) -> list[str]:
    found: list[str] = []
    for mail in smtp.handler.messages:
        body = mail.get_body(("plain",))
        assert body is not None
        found += re.findall(r"https://paperboy\.test/\S+", body.get_content())
        if mail["List-Unsubscribe"]:
            found.append(mail["List-Unsubscribe"].split(">")[0].lstrip("<"))
    return found


def _state(database: Database) -> tuple[object, ...]:
    with database.sessions() as session:
        return (
            sorted(session.scalars(select(Subscriber.status))),
            session.scalar(select(func.count()).select_from(DigestFeedback)),
            session.scalar(select(func.count()).select_from(UsedToken)),
        )


def test_a_mail_scanner_opening_every_link_in_every_mail_changes_nothing(
    client: TestClient, smtp: Smtp, database: Database, mail_settings: Settings
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org")
    send_digests(mail_settings, database.sessions, DAY, NOW)
    subscribe(client, email="bob@example.org")
    sign_in(client, smtp, "carol@example.org")
    every_link = _links_in_every_mail(smtp)
    # Six feedback links (three papers), preferences, unsubscribe twice, confirm, sign-in.
    assert len(every_link) >= 12
    before = _state(database)
    scanner = _cookieless(client)
    for link in every_link:
        assert scanner.get(link).status_code == 200, link
    assert _state(database) == before
    assert "paperboy_session" not in scanner.cookies


def test_the_confirmation_page_button_confirms(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    subscribe(client)
    link = link_in(smtp.handler.to("ada@example.org")[0], "/subscribe/confirm")
    page = client.get(link)
    assert page.status_code == 200 and "Confirm my subscription" in page.text
    assert [s.status for s in stored(database)] == ["pending"]
    assert press(client, link).status_code == 200
    assert [s.status for s in stored(database)] == ["active"]


def test_a_token_issued_in_the_future_is_refused(mail_settings: Settings) -> None:
    token = tokens.issue(mail_settings.secret_key, "preferences", "1", NOW + timedelta(hours=1))
    with pytest.raises(tokens.TokenError, match="future"):
        tokens.verify(mail_settings.secret_key, token, "preferences", NOW, None)
    skewed = tokens.issue(mail_settings.secret_key, "preferences", "1", NOW + timedelta(seconds=5))
    assert tokens.verify(mail_settings.secret_key, skewed, "preferences", NOW, None).subject == "1"


FOREIGN = (
    {"origin": "https://evil.example"},
    {"sec-fetch-site": "cross-site"},
    {"sec-fetch-site": "same-site"},
    {"origin": "null"},
)


@pytest.mark.parametrize("headers", FOREIGN)
def test_state_changing_posts_from_another_site_are_refused(
    client: TestClient,
    smtp: Smtp,
    database: Database,
    mail_settings: Settings,
    headers: dict[str, str],
) -> None:
    store_edition(database.sessions)
    ada = add_subscriber(database.sessions, "ada@example.org")
    press(client, sign_in(client, smtp, "ada@example.org"))
    page = client.get("/subscribe")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf is not None
    with database.sessions() as session:
        subscriber = session.get(Subscriber, ada)
        assert subscriber is not None
    token = links.preferences_url(mail_settings, subscriber, NOW).split("token=")[1]
    attempts: list[tuple[str, dict[str, object]]] = [
        ("/subscribe", {**FORM, "email": "bob@example.org", "csrf": csrf[1]}),
        ("/signin", {"email": "bob@example.org", "csrf": csrf[1]}),
        ("/subscriptions/preferences", {**FORM, "token": token, "action": "pause"}),
        ("/subscriptions/delete", {"token": token}),
    ]
    for path, data in attempts:
        assert client.post(path, data=data, headers=headers).status_code == 403, path
    assert client.post("/votes/2603.00001", headers=headers).status_code == 403
    assert [s.status for s in stored(database)] == ["active"]
    # From Paperboy's own pages the same requests work.
    own = {"origin": "https://paperboy.test", "sec-fetch-site": "same-origin"}
    assert client.post("/votes/2603.00001", headers=own).status_code == 200


def test_cookies_are_secure_in_production(database: Database, mail_settings: Settings) -> None:
    settings = mail_settings.model_copy(
        update={"env": "production", "public_base_url": "http://paperboy.test"}
    )
    with TestClient(create_app(settings), base_url=settings.public_base_url) as site:
        cookie = site.get("/subscribe").headers["set-cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie


def test_a_refused_mail_still_answers_the_same_page_and_its_status_page_says_why(
    client: TestClient, smtp: Smtp, database: Database, mail_settings: Settings
) -> None:
    smtp.handler.refuse["ada@example.org"] = "550 5.1.1 mailbox unavailable"
    page = subscribe(client)
    assert "Check your inbox" in page
    [ada] = stored(database)
    assert ada.status == "pending"
    ticket = re.search(r'href="(/mail/[A-Za-z0-9_-]+)"', page)
    assert ticket is not None
    said = client.get(ticket.group(1)).text
    assert "Could not be sent" in said and "550 5.1.1 mailbox unavailable" in said


def test_the_subscribe_page_answers_before_the_confirmation_mail_is_sent(
    smtp: Smtp, database: Database, mail_settings: Settings
) -> None:
    release = threading.Event()

    async def hold(_address: str) -> None:
        await asyncio.to_thread(release.wait, 30)

    smtp.handler.on_rcpt = hold
    settings = mail_settings.model_copy(update={"public_base_url": "http://127.0.0.1"})
    app = create_app(settings)
    with served(app) as url, httpx.Client(base_url=url, timeout=10) as browser:
        csrf = re.search(r'name="csrf" value="([^"]+)"', browser.get("/subscribe").text)
        assert csrf is not None
        # The mail server holds the mail, yet the page comes back: the answer does not wait.
        answer = browser.post("/subscribe", data={**FORM, "csrf": csrf[1]})
        assert answer.status_code == 200 and "Check your inbox" in answer.text
        assert smtp.handler.messages == []
        release.set()
        for _ in range(200):
            if smtp.handler.messages:
                break
            time.sleep(0.05)
    assert len(smtp.handler.to("ada@example.org")) == 1


def test_control_characters_in_free_text_preferences_are_not_stored(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    assert "Check your inbox" in subscribe(client, interests="graph\x00 neural\x1b[31m nets\x07")
    [ada] = stored(database)
    assert ada.interests == "graph neural[31m nets"
    token = links.preferences_url(mail_settings, ada, NOW).split("token=")[1]
    with session_scope(database.sessions) as session:
        session.add(Author(key="ada", name="Ada"))  # authors are chosen among those known
    saved = client.post(
        "/subscriptions/preferences",
        data={
            **FORM,
            "token": token,
            "exclusions": "a\x00b\nsurveys\x9b",
            "followed_authors": "Ada\x00",
        },
    )
    assert saved.status_code == 200
    [ada] = stored(database)
    assert (ada.exclusions, ada.followed_authors) == ("ab\nsurveys", ["ada"])


@pytest.mark.parametrize("zone", ["9" * 300, "é" * 300, "Europe/" + "x" * 70, "../../etc/passwd"])
def test_an_impossible_time_zone_is_a_422_not_a_500(
    client: TestClient, database: Database, zone: str
) -> None:
    answer = subscribe(client, time_zone=zone)
    assert answer.startswith("422") and "unknown time zone" in answer
    assert stored(database) == []


def test_an_address_longer_than_the_rule_once_its_domain_is_ascii_is_refused(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    # 240 characters as typed; ASCII-encoded, the domain alone passes 300.
    long_domain = ".".join(["\u5e73\u548c\u5e73\u548c\u5e73\u548c"] * 30) + ".org"
    answer = subscribe(client, email=f"a@{long_domain}")
    assert answer.startswith("422")
    assert stored(database) == [] and smtp.handler.messages == []


def test_an_internationalised_domain_is_read_as_registries_read_it(
    client: TestClient, database: Database
) -> None:
    subscribe(client, email="bob@faß.de")
    assert [s.email for s in stored(database)] == ["bob@xn--fa-hia.de"]
