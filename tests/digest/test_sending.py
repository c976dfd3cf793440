# ruff: noqa: RUF001 (Greek letters rendered from LaTeX are meant)
import re
from email.message import EmailMessage

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, text, update

from app.core.config import Settings
from app.core.models import Delivery, DigestFeedback, Subscriber
from digest.mail.messages import Envelope, RenderedEmail, build_message
from digest.sending import send_digests
from tests.conftest import Database
from tests.digest.conftest import NOW, Smtp
from tests.digest.editions import DAY, add_subscriber, store_edition
from tests.digest.mail_links import press
from tests.ranking.explaining import AUTHORS, UPVOTES


def body(mail: EmailMessage, kind: str) -> str:
    part = mail.get_body((kind,))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")


EXPECTED_TEXT_START = """Paperboy: trending papers, day of 2026-03-02

1. Scaling α-entmax attention to long contexts
   Ada Lovelace
   We scale α-entmax to 10⁶ tokens, e.g. books, in O(n) memory.
   Why: #1 trending (strongest signal: momentum)
   Read: https://paperboy.test/papers/2603.00001
   arXiv: https://arxiv.org/abs/2603.00001
   More or less like this: https://paperboy.test/subscriptions/feedback?token="""


def test_without_an_https_site_the_mail_offers_no_one_click_unsubscribe(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    settings = mail_settings.model_copy(update={"public_base_url": "http://localhost:8000"})
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org")
    assert send_digests(settings, database.sessions, DAY, NOW).counts["sent"] == 1
    [mail] = smtp.handler.to("ada@example.org")
    assert mail["List-Unsubscribe"].startswith("<http://localhost:8000/unsubscribe?token=")
    assert mail["List-Unsubscribe-Post"] is None


def test_a_digest_arrives_with_list_headers_and_the_exact_text_body(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org")
    summary = send_digests(mail_settings, database.sessions, DAY, NOW)
    assert summary.counts == {"sent": 1, "pending": 0}
    [mail] = smtp.handler.to("ada@example.org")
    assert mail["From"] == "Paperboy <digest@paperboy.test>"
    assert mail["Subject"].startswith("Paperboy day 2026-03-02: Scaling α-entmax")
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert re.fullmatch(
        r"<https://paperboy\.test/unsubscribe\?token=\S+>, "
        r"<mailto:unsubscribe@paperboy\.test\?subject=unsubscribe-\S+>",
        mail["List-Unsubscribe"],
    )
    assert mail["Auto-Submitted"] == "auto-generated" and mail["List-Id"] and mail["Date"]
    assert re.fullmatch(r"<[0-9a-f]+@paperboy\.test>", mail["Message-ID"])
    text = body(mail, "plain")
    assert text.startswith(EXPECTED_TEXT_START)
    html = body(mail, "html")
    assert "A &lt;b&gt;bold&lt;/b&gt; benchmark &amp; friends" in html and "<b>bold" not in html


EXPLAINED_TEXT_START = f"""Paperboy: trending papers, day of 2026-03-02

1. Scaling α-entmax attention to long contexts
   Ada Lovelace
   We scale α-entmax to 10⁶ tokens, e.g. books, in O(n) memory.
   12% chance to be featured on Hugging Face
   Why: #1 trending: {AUTHORS}; {UPVOTES}
   Read: https://paperboy.test/papers/2603.00001
"""


def test_a_digest_says_each_papers_chance_and_first_two_reasons_in_both_parts(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions, explained=True)
    add_subscriber(database.sessions, "ada@example.org")
    send_digests(mail_settings, database.sessions, DAY, NOW)
    [mail] = smtp.handler.to("ada@example.org")
    text = body(mail, "plain")
    assert text.startswith(EXPLAINED_TEXT_START)
    assert "strongest signal" not in text and "grew 4 times" not in text
    html = body(mail, "html")
    assert "<strong>12% chance to be featured on Hugging Face</strong>" in html
    assert f"Why: #1 trending: {AUTHORS}; {UPVOTES}</p>" in html


def test_a_second_run_and_a_refreshed_edition_never_send_a_second_copy(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org")
    send_digests(mail_settings, database.sessions, DAY, NOW)
    again = send_digests(mail_settings, database.sessions, DAY, NOW)
    assert again.counts == {"pending": 0}
    assert len(smtp.handler.to("ada@example.org")) == 1


def test_no_digest_on_a_day_without_an_edition(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    add_subscriber(database.sessions, "ada@example.org")
    assert send_digests(mail_settings, database.sessions, DAY, NOW).counts == {"pending": 0}
    assert smtp.handler.messages == []


def test_nobody_gets_a_digest_before_their_local_hour_or_before_confirming(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "late@example.org", delivery_hour=10)
    add_subscriber(database.sessions, "tokyo@example.org", delivery_hour=18, time_zone="Asia/Tokyo")
    add_subscriber(database.sessions, "pending@example.org", status="pending")
    send_digests(mail_settings, database.sessions, DAY, NOW)
    assert [m["To"] for m in smtp.handler.messages] == ["tokyo@example.org"]


def test_a_hostile_title_cannot_add_a_header(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(
        database.sessions, [("2603.00009", "Evil\r\nBcc: victim@example.org\r\nX: y", "cs.LG")]
    )
    add_subscriber(database.sessions, "ada@example.org")
    send_digests(mail_settings, database.sessions, DAY, NOW)
    [mail] = smtp.handler.messages
    assert mail["Bcc"] is None and mail["X"] is None
    assert mail["Subject"] == "Paperboy day 2026-03-02: Evil Bcc: victim@example.org X: y"


def test_links_in_the_digest_record_feedback_and_one_click_unsubscribe(
    database: Database, mail_settings: Settings, smtp: Smtp, client: TestClient
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org")
    send_digests(mail_settings, database.sessions, DAY, NOW)
    [mail] = smtp.handler.messages
    text = body(mail, "plain")
    first = re.search(r"More or less like this: (\S+)", text).group(1)  # type: ignore[union-attr]
    assert press(client, first, "More like this").status_code == 200
    preferences = re.search(r"Preferences: (\S+)", text).group(1)  # type: ignore[union-attr]
    assert "ada@example.org" in client.get(preferences).text
    one_click = mail["List-Unsubscribe"].split(">")[0].lstrip("<")
    assert client.get(one_click).status_code == 200  # the page with a button changes nothing
    with database.sessions() as session:
        assert session.scalars(select(Subscriber.status)).one() == "active"
        assert session.scalars(select(DigestFeedback.value)).one() == 1
    response = client.post(one_click, data={"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    with database.sessions() as session:
        assert session.scalars(select(Subscriber.status)).one() == "unsubscribed"


def test_a_refused_recipient_is_recorded_and_pauses_after_repeated_failures(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "gone@example.org", failure_count=2)
    add_subscriber(database.sessions, "ada@example.org")
    smtp.handler.refuse["gone@example.org"] = "550 5.1.1 No such user"
    summary = send_digests(mail_settings, database.sessions, DAY, NOW)
    assert summary.counts == {"failed": 1, "sent": 1, "pending": 0}
    with database.sessions() as session:
        gone = session.scalars(
            select(Subscriber).where(Subscriber.email == "gone@example.org")
        ).one()
        assert gone.status == "paused" and "550" in (gone.last_failure or "")


def test_with_the_smtp_server_down_nothing_is_lost_and_the_next_run_sends(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org")
    add_subscriber(database.sessions, "bob@example.org")
    down = mail_settings.model_copy(update={"smtp_port": 1})
    failed = send_digests(down, database.sessions, DAY, NOW)
    assert failed.error and failed.counts == {"pending": 2}
    assert smtp.handler.messages == []
    recovered = send_digests(mail_settings, database.sessions, DAY, NOW)
    assert recovered.counts == {"sent": 2, "pending": 0}
    assert sorted(m["To"] for m in smtp.handler.messages) == ["ada@example.org", "bob@example.org"]


def test_a_header_value_with_a_line_break_is_refused_outright() -> None:
    envelope = Envelope("Paperboy <digest@paperboy.test>", "ada@example.org", NOW)
    with pytest.raises(ValueError, match="one line"):
        build_message(
            envelope, RenderedEmail("Hi\r\nBcc: victim@example.org", "text", "<p>html</p>")
        )


def test_a_digest_that_cannot_be_composed_is_marked_failed_and_the_others_are_sent(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org")
    broken = add_subscriber(database.sessions, "broken@example.org")
    unreadable = add_subscriber(database.sessions, "unreadable@example.org")
    add_subscriber(database.sessions, "bob@example.org")
    # Rows no form would store, written straight into the database: an address with a line
    # break (the message refuses it) and categories that are not a list.
    with database.engine.begin() as connection:
        connection.execute(
            update(Subscriber)
            .where(Subscriber.id == broken)
            .values(email="broken@example.org\r\nBcc: victim@example.org")
        )
        connection.execute(
            text("UPDATE subscribers SET categories = '7' WHERE id = :id"), {"id": unreadable}
        )
    summary = send_digests(mail_settings, database.sessions, DAY, NOW)
    assert summary.error is None
    assert summary.counts == {"sent": 2, "failed": 2, "pending": 0}
    assert sorted(m["To"] for m in smtp.handler.messages) == ["ada@example.org", "bob@example.org"]
    with database.sessions() as session:
        errors = dict(session.execute(select(Delivery.subscriber_id, Delivery.error)).all())
        statuses = set(session.scalars(select(Delivery.status).where(Delivery.error.is_not(None))))
    assert (errors[broken] or "").startswith("ValueError: a header value must be one line")
    assert (errors[unreadable] or "").startswith("TypeError: ")
    assert statuses == {"failed"}


def test_a_recipient_refused_for_now_waits_for_the_next_run_and_the_others_are_sent(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org")
    add_subscriber(database.sessions, "busy@example.org")
    add_subscriber(database.sessions, "bob@example.org")
    smtp.handler.refuse["busy@example.org"] = "452 4.2.2 Mailbox full, try later"
    summary = send_digests(mail_settings, database.sessions, DAY, NOW)
    assert summary.error is None
    assert summary.counts == {"sent": 2, "deferred": 1, "pending": 1}
    assert sorted(m["To"] for m in smtp.handler.messages) == ["ada@example.org", "bob@example.org"]
    del smtp.handler.refuse["busy@example.org"]
    assert send_digests(mail_settings, database.sessions, DAY, NOW).counts == {
        "sent": 1,
        "pending": 0,
    }
    assert len(smtp.handler.to("busy@example.org")) == 1


def test_a_subscriber_with_an_unknown_time_zone_does_not_stop_the_run(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "mars@example.org", time_zone="Mars/Olympus_Mons")
    add_subscriber(database.sessions, "ada@example.org")
    summary = send_digests(mail_settings, database.sessions, DAY, NOW)
    assert summary.counts == {"sent": 1, "unschedulable": 1, "pending": 0}
    assert [m["To"] for m in smtp.handler.messages] == ["ada@example.org"]
