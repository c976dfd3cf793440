"""What one paper of a digest says and links to, and the feedback page its one link opens."""

# ruff: noqa: RUF001 (Greek letters rendered from LaTeX are meant)
import re

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.core.config import Settings
from app.core.models import DigestFeedback
from digest.sending import send_digests
from tests.conftest import Database
from tests.digest.conftest import NOW, Smtp
from tests.digest.editions import DAY, TITLES, add_subscriber, store_edition
from tests.digest.mail_links import press
from tests.digest.test_sending import body

FEEDBACK_LINK = re.compile(r"More or less like this: (\S+)")
HOSTILE = ("2603.00666", '<script>alert(1)</script> $\\alpha$ "><img src=x> {{ 7*7 }}', "cs.LG")


def _digest(database: Database, settings: Settings, smtp: Smtp, titles=TITLES):  # type: ignore[no-untyped-def]
    store_edition(database.sessions, titles)
    add_subscriber(database.sessions, "ada@example.org")
    send_digests(settings, database.sessions, DAY, NOW)
    [mail] = smtp.handler.messages
    return mail


def test_an_item_links_its_paperboy_page_and_arxiv_and_quotes_a_readable_first_sentence(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    html = body(_digest(database, mail_settings, smtp), "html")
    first = html[html.index("<strong>1.</strong>") : html.index("<strong>2.</strong>")]
    assert '<a href="https://paperboy.test/papers/2603.00001"' in first
    assert '<a href="https://arxiv.org/abs/2603.00001"' in first
    assert ">Scaling α-entmax attention to long contexts</a>" in first
    assert ">We scale α-entmax to 10⁶ tokens, e.g. books, in O(n) memory.</p>" in first
    assert "second sentence" not in html and "$" not in html and "\\" not in html


def test_the_plain_text_has_one_feedback_link_per_paper_and_no_choice_in_it(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    text = body(_digest(database, mail_settings, smtp), "plain")
    links = FEEDBACK_LINK.findall(text)
    assert len(links) == len(TITLES) == text.count("/subscriptions/feedback")
    assert all("value=" not in link and len(link) < 300 for link in links)
    assert "More like this:" not in text and "Less like this:" not in text


def test_the_feedback_page_offers_both_choices_and_the_last_one_pressed_counts(
    database: Database, mail_settings: Settings, smtp: Smtp, client: TestClient
) -> None:
    text = body(_digest(database, mail_settings, smtp), "plain")
    link = FEEDBACK_LINK.findall(text)[0]
    page = client.get(link).text
    assert "Scaling $\\alpha$-entmax attention to long contexts" in page  # TeX is shown by KaTeX
    assert '<button type="submit" name="value" value="1">' in page
    assert '<button type="submit" name="value" value="-1">' in page
    assert press(client, link, "Less like this").status_code == 200
    assert press(client, link, "More like this").status_code == 200
    with database.sessions() as session:
        assert session.scalars(select(DigestFeedback.value)).all() == [1]


def test_a_link_mailed_with_a_choice_in_it_still_opens_the_page_with_both(
    database: Database, mail_settings: Settings, smtp: Smtp, client: TestClient
) -> None:
    link = FEEDBACK_LINK.findall(body(_digest(database, mail_settings, smtp), "plain"))[1]
    page = client.get(f"{link}&value=-1")
    assert page.status_code == 200 and "More like this" in page.text and "Less like" in page.text
    with database.sessions() as session:
        assert session.scalars(select(DigestFeedback)).all() == []


def test_a_hostile_title_stays_text_in_both_parts_and_on_the_feedback_page(
    database: Database, mail_settings: Settings, smtp: Smtp, client: TestClient
) -> None:
    mail = _digest(database, mail_settings, smtp, [HOSTILE])
    html, text = body(mail, "html"), body(mail, "plain")
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; α &#34;&gt;&lt;img src=x&gt; {{ 7*7 }}" in html
    assert '1. <script>alert(1)</script> α "><img src=x> {{ 7*7 }}\n' in text
    page = client.get(FEEDBACK_LINK.findall(text)[0]).text
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
