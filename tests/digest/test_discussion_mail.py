"""Mail about discussions, end to end: comments posted through the use case, the
``discussion-mail`` job queueing, the ``mail`` job delivering to a real SMTP server, and the
one-click link in the mail turning exactly its kind off (time moved by the clock, never slept)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from itertools import count

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from accounts import links, reader, signin
from accounts.comment_mail import excerpt
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import (
    Author,
    Comment,
    CommentState,
    OutboxMail,
    Paper,
    PaperPerson,
    Person,
    Subscriber,
)
from app.services.comment_mail import queue_comment_mail
from app.services.discussion import Draft, post_comment
from app.services.mail_outbox import send_due
from app.services.subscribers import unsubscribe_by_token
from app.web.routes.voting import SESSION_COOKIE
from tests.conftest import Database
from tests.digest.conftest import NOW, Clock, Smtp
from tests.servers import free_port

PAPER = "2601.00001"
TITLE = "Sparse $\\alpha$-attention for long documents"
_once = count()


@dataclass
class Site:
    settings: Settings
    sessions: sessionmaker[Session]
    clock: Clock


def _paper_with_author(session: Session) -> int:
    """The paper and its one author's person; the person's id."""
    session.add(Author(key="carol-author", name="Carol Author"))
    session.add(Paper(arxiv_id=PAPER, title=TITLE, abstract="A.", content_hash="h"))
    session.flush()
    person = Person(author_key="carol-author", created_at=NOW)
    session.add(person)
    session.flush()
    session.add(PaperPerson(arxiv_id=PAPER, author_key="carol-author", person_id=person.id))
    return person.id


def _reader(session: Session, address: str, *, proven: bool = True) -> Subscriber:
    found = reader.reader_row(session, address, NOW - timedelta(days=40))
    found.confirmed_at = NOW - timedelta(days=30) if proven else None
    return found


def _world(database: Database) -> None:
    """Ada and Bob read; Carol is the paper's verified author, with its mail on; Dan's
    mailbox was never proven."""
    with session_scope(database.sessions) as session:
        person = _paper_with_author(session)
        for name in ("ada", "bob", "dan"):
            _reader(session, f"{name}@example.org", proven=name != "dan")
        carol = _reader(session, "carol@example.org")
        carol.claimed_person, carol.claim_verified_at = person, NOW - timedelta(days=5)
        carol.paper_comment_mail_since = NOW - timedelta(days=1)


def _say(site: Site, who: str, body: str, reply_to: int | None = None) -> int:
    site.clock.now += timedelta(minutes=1)
    draft = Draft(
        arxiv_id=PAPER,
        body=body,
        once=f"o{next(_once)}",
        parent_id=reply_to,
        name=f"{who.title()} R.",
    )
    return post_comment(site, f"{who}@example.org", draft).id


def _run(site: Site, at: datetime) -> int:
    """Both jobs at ``at``: the mails queued, then sent; how many were queued."""
    site.clock.now = at
    queued = queue_comment_mail(site.settings, site.sessions, at).queued
    send_due(site.settings, site.sessions, at)
    return queued


def _site(database: Database, mail_settings: Settings, clock: Clock) -> Site:
    _world(database)
    return Site(mail_settings, database.sessions, clock)


def _off_link(mail: EmailMessage) -> str:
    """The https link of the mail's List-Unsubscribe header, as a path of the site."""
    found = re.search(
        r"<https://paperboy\.test(/comments/mail-off\?token=[^>]+)>", mail["List-Unsubscribe"]
    )
    assert found is not None, mail["List-Unsubscribe"]
    return found[1]


def _text(mail: EmailMessage) -> str:
    part = mail.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def test_a_reply_and_a_new_comment_on_an_authors_paper_reach_the_smtp_server(
    database: Database, mail_settings: Settings, clock: Clock, smtp: Smtp
) -> None:
    site = _site(database, mail_settings, clock)
    top = _say(site, "ada", "Does the *bound* hold for $n<3$? See <https://example.org/x>.")
    reply = _say(site, "bob", "Yes, by Lemma 2 & the &lt;usual&gt; argument.", reply_to=top)
    assert _run(site, clock.now + timedelta(minutes=5)) == 2

    [to_ada] = smtp.handler.to("ada@example.org")
    assert to_ada["Subject"] == "1 new reply to your comments on Paperboy"
    text = _text(to_ada)
    assert "Sparse \u03b1-attention for long documents" in text
    assert "Bob R. wrote: Yes, by Lemma 2 & the <usual> argument." in text
    assert f"https://paperboy.test/papers/{PAPER}#comment-{reply}" in text
    assert "bob@example.org" not in to_ada.as_string()
    assert to_ada["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "<mailto:unsubscribe@paperboy.test?subject=unsubscribe-" in to_ada["List-Unsubscribe"]
    assert f"https://paperboy.test{_off_link(to_ada)}" in text

    [to_carol] = smtp.handler.to("carol@example.org")
    assert to_carol["Subject"] == "2 new comments on your papers on Paperboy"
    text = _text(to_carol)
    assert "Ada R. wrote: Does the bound hold for $n<3$? See https://example.org/x." in text
    assert f"#comment-{top}" in text and f"#comment-{reply}" in text
    assert "no more mail about comments on your papers" in text
    assert smtp.handler.to("bob@example.org") == []


def test_one_click_stops_one_kind_and_a_reader_gets_one_mail_an_hour(
    database: Database, mail_settings: Settings, clock: Clock, smtp: Smtp, client: TestClient
) -> None:
    site = _site(database, mail_settings, clock)
    own = _say(site, "carol", "Authors here: ask away.")
    _say(site, "ada", "How long did training take?")
    _say(site, "bob", "Thanks for answering here.", reply_to=own)
    start = clock.now + timedelta(minutes=1)
    assert _run(site, start) == 1
    [first] = smtp.handler.to("carol@example.org")
    assert first["Subject"] == "1 new comment on your papers on Paperboy"
    assert "Bob R. wrote" not in _text(first)  # the reply waits: one kind a mail

    assert _run(site, start + timedelta(minutes=30)) == 0  # within the hour: nothing
    answer = client.post(_off_link(first))
    assert answer.status_code == 200 and "no more mail about new comments" in answer.text

    _say(site, "ada", "And on how many GPUs?")
    assert _run(site, start + timedelta(minutes=61)) == 1
    second = smtp.handler.to("carol@example.org")[1]
    assert second["Subject"] == "1 new reply to your comments on Paperboy"
    assert "Bob R. wrote: Thanks for answering here." in _text(second)
    assert "GPUs" not in _text(second)
    assert _run(site, start + timedelta(hours=3)) == 0
    assert len(smtp.handler.to("carol@example.org")) == 2


def test_own_held_hidden_and_unproven_comments_or_readers_are_never_mailed(
    database: Database, mail_settings: Settings, clock: Clock, smtp: Smtp
) -> None:
    site = _site(database, mail_settings, clock)
    ada_top = _say(site, "ada", "A first question.")
    dan_top = _say(site, "dan", "Unproven mailbox here.")
    _say(site, "ada", "Answering myself.", reply_to=ada_top)
    _say(site, "ada", "Dan, see above.", reply_to=dan_top)
    held = " ".join(f"https://spam.example/{n}" for n in range(8))
    _say(site, "bob", held, reply_to=ada_top)
    hidden = _say(site, "bob", "Later hidden by a moderator.", reply_to=ada_top)
    with session_scope(database.sessions) as session:
        session.get_one(Comment, hidden).state = CommentState.HIDDEN
    assert _run(site, clock.now + timedelta(minutes=1)) == 1  # Carol, of every shown one
    assert smtp.handler.to("ada@example.org") == smtp.handler.to("dan@example.org") == []
    assert "spam.example" not in _text(smtp.handler.to("carol@example.org")[0])

    shown = _say(site, "bob", "A fair answer.", reply_to=ada_top)
    assert _run(site, clock.now + timedelta(minutes=1)) == 1
    [to_ada] = smtp.handler.to("ada@example.org")
    assert f"#comment-{shown}" in _text(to_ada)
    assert "Later hidden" not in _text(to_ada) and "spam.example" not in _text(to_ada)


def test_the_link_page_changes_nothing_and_a_forged_or_expired_link_is_refused(
    database: Database, mail_settings: Settings, clock: Clock, client: TestClient
) -> None:
    site = _site(database, mail_settings, clock)
    with session_scope(database.sessions) as session:
        ada = _reader(session, "ada@example.org")
        fresh = links.comment_mail_off_urls(mail_settings, ada, "replies", NOW)
        old = links.comment_mail_off_urls(mail_settings, ada, "replies", NOW - timedelta(days=91))
    page = client.get(fresh.https.removeprefix("https://paperboy.test"))
    assert page.status_code == 200 and "Stop mail about replies to your comments" in page.text
    forged = fresh.https[:-3] + ("AAA" if not fresh.https.endswith("AAA") else "BBB")
    for link, reason in ((forged, "tampered"), (old.https, "expired")):
        answer = client.post(link.removeprefix("https://paperboy.test"))
        assert answer.status_code == 400 and f"This link is {reason}" in answer.text
    assert _reply_mail(site) is True

    token = fresh.mailto.rsplit("unsubscribe-", 1)[1]
    unsubscribe_by_token(mail_settings, database.sessions, token, NOW)
    assert _reply_mail(site) is False


def _reply_mail(site: Site) -> bool:
    with session_scope(site.sessions) as session:
        found = session.scalars(select(Subscriber).where(Subscriber.email_key == "ada@example.org"))
        return found.one().reply_mail


def test_a_mail_the_server_cannot_take_stays_queued(
    database: Database, mail_settings: Settings, clock: Clock
) -> None:
    away = mail_settings.model_copy(update={"smtp_port": free_port()})
    site = Site(away, database.sessions, clock)
    _world(database)
    top = _say(site, "ada", "Anyone?")
    _say(site, "bob", "Here.", reply_to=top)
    at = clock.now + timedelta(minutes=1)
    queue_comment_mail(away, database.sessions, at)
    assert send_due(away, database.sessions, at).sent == 0
    with session_scope(database.sessions) as session:
        rows = session.scalars(select(OutboxMail)).all()
        assert [(row.sent_at, row.given_up_at) for row in rows] == [(None, None)] * 2


def test_a_reader_switches_both_kinds_and_the_digests_discussed_papers_on_their_page(
    database: Database, mail_settings: Settings, clock: Clock, client: TestClient
) -> None:
    _world(database)
    with session_scope(database.sessions) as session:
        cookie = signin.session_token(mail_settings, session, "carol@example.org", NOW)
    client.cookies.set(SESSION_COOKIE, cookie)
    page = client.get("/for-you").text
    assert page.count(" checked> Mail me") == 2
    origin = {"origin": "https://paperboy.test"}
    answer = client.post(
        "/for-you/comment-mail",
        data={"papers": "on", "discussed": "on"},
        headers=origin,
        follow_redirects=False,
    )
    assert answer.status_code == 303
    elsewhere = {"origin": "https://evil.example", "sec-fetch-site": "cross-site"}
    forged = client.post("/for-you/comment-mail", data={"replies": "on"}, headers=elsewhere)
    assert forged.status_code == 403
    with session_scope(database.sessions) as session:
        carol = reader.find(session, "carol@example.org")
        assert carol is not None
        assert (carol.reply_mail, carol.paper_comment_mail_since, carol.discussed_in_digest) == (
            False,
            NOW - timedelta(days=1),
            True,
        )
    page = client.get("/for-you").text
    assert page.count(" checked> Mail me") == 1 and " checked> In my digest, list" in page
    exported = client.get("/for-you/data.json").json()
    assert (exported["reply_mail"], exported["discussed_in_digest"]) == (False, True)


def test_an_excerpt_is_the_comments_plain_text_cut_at_a_word() -> None:
    rendered = "<p>One <em>two</em> three &amp; four.</p>\n<p>" + "word " * 60 + "</p>"
    cut = excerpt(rendered, limit=40)
    assert cut == "One two three & four. word word word…"
    assert excerpt("<p>a<br>b</p>") == "a b"
