"""The mail outbox, against a real SMTP server: a confirmation or sign-in mail the server puts
off is kept and tried again with backoff, one it refuses for good says so, and the reader's
status page (``/mail/{ticket}``) tells each case without telling whether the address was known.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.core.config import Settings
from app.core.models import MailKind, OutboxMail, Subscriber
from app.services.mail_outbox import send_due
from app.web.app import create_app
from digest.mail import outbox
from digest.mail.outbox import GIVE_UP_AFTER, wait_after
from tests.conftest import Database
from tests.digest.conftest import NOW, Clock, Smtp
from tests.digest.test_subscribe import FORM, subscribe
from tests.servers import free_port

ADA = "ada@example.org"
assert FORM["email"] == ADA


def kept(database: Database) -> list[OutboxMail]:
    with database.sessions() as session:
        return list(session.scalars(select(OutboxMail).order_by(OutboxMail.id)))


def words(page: str) -> str:
    """The page's text with its line breaks and indents as single spaces."""
    return " ".join(page.split())


def status_link(page: str) -> str:
    found = re.search(r'href="(/mail/[A-Za-z0-9_-]+)"', page)
    assert found is not None, page
    return found.group(1)


@pytest.fixture
def dead_server_client(
    mail_settings: Settings, clock: Clock
) -> Iterator[tuple[TestClient, Settings]]:
    """The app with its SMTP server on a port nothing listens on."""
    dead = mail_settings.model_copy(update={"smtp_port": free_port()})
    with TestClient(create_app(dead, clock), base_url="https://paperboy.test") as client:
        yield client, dead


def test_a_sent_confirmation_says_sent_on_its_status_page(client: TestClient, smtp: Smtp) -> None:
    page = subscribe(client)
    assert "Check your inbox" in page
    assert len(smtp.handler.to(ADA)) == 1
    status = client.get(status_link(page))
    assert status.status_code == 200
    assert "<h1>Sent</h1>" in status.text
    assert status.headers["cache-control"] == "private, no-store"


def test_a_mail_the_server_puts_off_is_shown_waiting_and_sent_by_the_mail_job(
    client: TestClient, smtp: Smtp, database: Database, mail_settings: Settings, clock: Clock
) -> None:
    smtp.handler.refuse[ADA] = "451 4.3.0 Mailbox busy, try later"
    page = subscribe(client)
    assert "Check your inbox" in page
    waiting = words(client.get(status_link(page)).text)
    assert (
        "Not sent yet: the mail server did not take it; we try again at 09:01 UTC (attempt 2)."
        in waiting
    )
    assert "recipient refused: 451 4.3.0 Mailbox busy, try later" in waiting
    # Not yet due: the job leaves it.
    assert send_due(mail_settings, database.sessions, NOW).sent == 0
    del smtp.handler.refuse[ADA]
    report = send_due(mail_settings, database.sessions, NOW + timedelta(minutes=1))
    assert (report.sent, report.waiting, report.given_up) == (1, 0, 0)
    [mail] = smtp.handler.to(ADA)
    assert mail["Subject"] == "Confirm your Paperboy subscription"
    assert "<h1>Sent</h1>" in client.get(status_link(page)).text
    assert send_due(mail_settings, database.sessions, NOW + timedelta(hours=2)).sent == 0
    assert len(smtp.handler.to(ADA)) == 1


def test_a_mail_the_server_refuses_for_good_shows_its_words_escaped(
    client: TestClient, smtp: Smtp, database: Database, mail_settings: Settings
) -> None:
    smtp.handler.refuse[ADA] = "550 5.1.1 <ada@example.org>: no such user here"
    page = subscribe(client)
    refused = client.get(status_link(page)).text
    assert "Could not be sent" in refused
    assert "recipient refused: 550 5.1.1 &lt;ada@example.org&gt;: no such user here" in refused
    assert '<a href="/subscribe">ask again</a>' in refused
    [row] = kept(database)
    assert (row.attempts, row.given_up_at, row.next_attempt_at) == (1, NOW, None)
    del smtp.handler.refuse[ADA]
    assert send_due(mail_settings, database.sessions, NOW + timedelta(days=1)).sent == 0
    assert smtp.handler.to(ADA) == []


def test_a_refused_sign_in_link_offers_the_sign_in_form_again(
    client: TestClient, smtp: Smtp
) -> None:
    smtp.handler.refuse[ADA] = "550 5.7.1 Refused"
    form = client.get("/signin")
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert csrf is not None
    page = client.post("/signin", data={"email": ADA, "csrf": csrf.group(1)}).text
    assert f"A sign-in link is on its way to {ADA}." in page
    refused = client.get(status_link(page)).text
    assert "recipient refused: 550 5.7.1 Refused" in refused
    assert '<a href="/signin">ask again</a>' in refused


def test_a_dead_mail_server_loses_nothing_and_the_job_sends_once_it_is_back(
    dead_server_client: tuple[TestClient, Settings],
    smtp: Smtp,
    database: Database,
    mail_settings: Settings,
) -> None:
    client, dead = dead_server_client
    page = subscribe(client)
    assert "Check your inbox" in page
    with database.sessions() as session:
        assert [s.email for s in session.scalars(select(Subscriber))] == [ADA]
    waiting = words(client.get(status_link(page)).text)
    assert "SMTP unavailable" in waiting and "09:01 UTC (attempt 2)" in waiting
    # Still dead a minute later: the job counts the try and waits twice as long.
    report = send_due(dead, database.sessions, NOW + timedelta(minutes=1))
    assert (report.sent, report.waiting) == (0, 1)
    [row] = kept(database)
    assert (row.attempts, row.next_attempt_at) == (2, NOW + timedelta(minutes=3))
    assert "09:03 UTC (attempt 3)" in words(client.get(status_link(page)).text)
    assert send_due(mail_settings, database.sessions, NOW + timedelta(minutes=3)).sent == 1
    assert len(smtp.handler.to(ADA)) == 1


def test_the_wait_doubles_from_a_minute_up_to_an_hour() -> None:
    waits = [wait_after(attempts) / timedelta(minutes=1) for attempts in range(1, 10)]
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60, 60]


def test_a_readers_mail_is_given_up_after_a_day_but_an_alert_is_kept(
    database: Database, mail_settings: Settings
) -> None:
    dead = mail_settings.model_copy(update={"smtp_port": free_port()})
    mail = outbox.outgoing(
        OutboxMail(sender="digest@paperboy.test", recipient=ADA, message=b"Subject: x\r\n\r\nx")
    )
    with database.sessions.begin() as session:
        for kind in (MailKind.CONFIRMATION, MailKind.ALERT):
            outbox.queue(session, kind, mail, NOW)
    late = NOW + GIVE_UP_AFTER
    assert send_due(dead, database.sessions, late).given_up == 1
    # The server is away: the run stopped at the first mail; the next run tries the other.
    assert send_due(dead, database.sessions, late).waiting == 1
    reader, alert = kept(database)
    assert reader.given_up_at == late and "SMTP unavailable" in (reader.last_error or "")
    assert alert.given_up_at is None and alert.next_attempt_at is not None


def test_the_page_is_the_same_for_a_new_and_a_known_address(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    first, again = subscribe(client), subscribe(client)
    tickets = [status_link(first), status_link(again)]
    assert tickets[0] != tickets[1]
    assert first.replace(tickets[0], "") == again.replace(tickets[1], "")
    statuses = [client.get(ticket).text for ticket in tickets]
    assert statuses[0] == statuses[1]
    assert len(smtp.handler.to(ADA)) == 2


def test_an_unknown_ticket_is_not_found(client: TestClient) -> None:
    assert client.get("/mail/no-such-ticket").status_code == 404


def test_two_senders_never_take_the_same_mail(database: Database) -> None:
    mail = outbox.outgoing(
        OutboxMail(sender="digest@paperboy.test", recipient=ADA, message=b"Subject: x\r\n\r\nx")
    )
    with database.sessions.begin() as session:
        mail_id = outbox.queue(session, MailKind.SIGN_IN, mail, NOW).id
    with database.sessions.begin() as session:
        assert outbox.claim(session, mail_id, NOW)
    with database.sessions.begin() as session:
        assert not outbox.claim(session, mail_id, NOW)
        # A sender that died mid-send leaves it due again once its hold ends.
        assert outbox.claim(session, mail_id, NOW + outbox.HOLD)
