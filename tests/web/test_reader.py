"""A signed-in reader on the site: "For you" (the digest's own picks), its private feed, the
reading list and its exports, thumbs, follows, mutes and "This is me", over HTTP without
JavaScript (forms answered 303), and as a script asks (JSON).

The web database is shared by the package: every test acts as a reader of its own, deleted
with everything they did afterwards.
"""

from __future__ import annotations

import email
import html
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import default
from itertools import count

import feedparser
import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from accounts import links, reader, signin
from accounts.addresses import parse_address
from accounts.preferences import Preferences
from accounts.subscriptions import delete_everything, request_subscription
from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import (
    DigestFeedback,
    EditionKey,
    Frequency,
    Paper,
    PaperAuthor,
    PaperTopic,
    SavedPaper,
    SignInKey,
    Subscriber,
    SubscriberStatus,
)
from app.services.digests import view_of
from app.web.forms import CSRF_COOKIE
from app.web.routes.voting import SESSION_COOKIE
from digest.compose import build_digest
from digest.ledger import Reader
from digest.tastes import Tastes
from tests.web.conftest import HOSTILE_ID, HOSTILE_TITLE, LAST_DAY
from tests.web.helpers import edition_ids

_numbers = count()
DAY_EDITION = EditionKey("day", LAST_DAY)


@contextmanager
def _session(settings: Settings) -> Iterator[Session]:
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as session:
        yield session


def _now() -> datetime:
    return datetime.now(UTC)


class SignedIn:
    """A signed-in reader: their mailbox and the headers their browser sends."""

    def __init__(self, settings: Settings, address: str) -> None:
        self.settings, self.address = settings, address
        with _session(settings) as session:
            cookie = signin.session_token(settings, session, address, _now())
        self.headers = {"cookie": f"{SESSION_COOKIE}={cookie}"}
        self.json = self.headers | {"accept": "application/json"}

    def row(self) -> Subscriber | None:
        with _session(self.settings) as session:
            found = reader.find(session, self.address)
            if found is not None:
                session.expunge(found)
            return found


@pytest.fixture
def ada(site_settings: Settings) -> Iterator[SignedIn]:
    one = SignedIn(site_settings, f"reader{next(_numbers)}@example.org")
    yield one
    with _session(site_settings) as session:
        found = reader.find(session, one.address)
        if found is not None:
            delete_everything(session, found)


def _order(html: str) -> list[str]:
    """The papers of a page's cards, in order (a card's id writes "/" as "-")."""
    return re.findall(r'<li class="paper" id="p-([^"]+)"', html)


def _for_you(client: TestClient, who: SignedIn) -> str:
    response = client.get("/for-you", headers=who.headers)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "private, no-store"
    return response.text


def _post(client: TestClient, who: SignedIn, path: str, **form: str) -> None:
    response = client.post(path, data=form, headers=who.headers, follow_redirects=False)
    assert response.status_code == 303, response.text


def test_a_reader_not_signed_in_is_invited_to_sign_in(client: TestClient) -> None:
    page = client.get("/for-you")
    assert page.status_code == 200 and 'href="/signin"' in page.text
    assert _order(page.text) == []
    saved = client.post("/papers/2512.16698/save", follow_redirects=False)
    assert (saved.status_code, saved.headers["location"]) == (303, "/signin")
    scripted = client.post("/papers/2512.16698/save", headers={"accept": "application/json"})
    assert scripted.status_code == 401
    assert client.get("/reading-list", follow_redirects=False).headers["location"] == "/for-you"


def test_for_you_is_the_trending_edition_with_reasons_and_stores_nothing(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    page = _for_you(client, ada)
    # Ten picks for a reader with no taste yet, then the trending section's next three.
    assert _order(page) == edition_ids(site_settings, "day", LAST_DAY)[:13]
    assert page.count("<strong>For you:</strong> #") == 13
    assert "<strong>For you:</strong> #1 trending" in page
    assert ada.row() is None


def test_for_you_holds_the_digests_picks_for_the_same_reader_and_edition(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    topic = _topic_of_a_low_ranked_paper(site_settings)
    _post(client, ada, f"/topics/{topic}/follow")
    _post(
        client,
        ada,
        f"/papers/{edition_ids(site_settings, 'day', LAST_DAY)[0]}/feedback",
        value="down",
    )
    page = _for_you(client, ada)
    mailed = _digest(site_settings, ada)
    assert _order(page) == [arxiv_id.replace("/", "-") for arxiv_id, _ in mailed]
    for _arxiv_id, why in mailed:
        assert f"<strong>For you:</strong> {why}" in html.unescape(page)
    assert "in the topic you follow" in page


def _digest(settings: Settings, who: SignedIn) -> list[tuple[str, str]]:
    """The papers and reasons of the reader's digest of the day, as the mail's text says."""
    with _session(settings) as session:
        found = reader.find(session, who.address)
        assert found is not None
        view = view_of(session, settings, DAY_EDITION)
        assert view is not None
        tastes = Tastes(session, settings.embedding_model, None)
        built = build_digest(settings, session, Reader.of(found), view, DAY_EDITION, _now(), tastes)
        assert built is not None
    message = email.message_from_bytes(built.message.raw, policy=default)
    assert isinstance(message, EmailMessage)
    body = message.get_body(("plain",))
    assert body is not None
    text = body.get_content()
    whys = [" ".join(why.split()) for why in re.findall(r"Why: (.+?)\n   Read:", text, re.S)]
    ids = re.findall(r"arXiv: https://arxiv.org/abs/(\S+)", text)
    return list(zip(ids, whys, strict=True))


def _topic_of_a_low_ranked_paper(settings: Settings) -> int:
    ranked = edition_ids(settings, "day", LAST_DAY)
    with _session(settings) as session:
        for arxiv_id in ranked[20:]:
            topic = session.scalar(
                select(PaperTopic.topic_id).where(PaperTopic.arxiv_id == arxiv_id)
            )
            if topic is not None:
                return int(topic)
    raise AssertionError("no topic below rank 20")


def test_a_thumbs_up_is_stored_as_digest_feedback_and_changes_the_order(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    before = _order(_for_you(client, ada))
    liked = edition_ids(site_settings, "day", LAST_DAY)[40]
    _post(client, ada, f"/papers/{liked}/feedback", value="up")
    found = ada.row()
    assert found is not None and found.status == SubscriberStatus.WEB
    with _session(site_settings) as session:
        assert session.get(DigestFeedback, (found.id, liked)).value == 1  # type: ignore[union-attr]
    after = _order(_for_you(client, ada))
    assert after != before and liked.replace("/", "-") in after
    taken_back = client.post(f"/papers/{liked}/feedback", data={"value": "none"}, headers=ada.json)
    assert taken_back.json() == {"arxiv_id": liked, "thumb": 0}
    assert _order(_for_you(client, ada)) == before


def test_following_and_muting_a_topic_change_the_picks_and_can_be_undone(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    topic = _topic_of_a_low_ranked_paper(site_settings)
    _post(client, ada, f"/topics/{topic}/follow")
    followed = _for_you(client, ada)
    assert "in the topic you follow" in followed
    assert f'action="/topics/{topic}/follow"' in followed  # its undo, listed on the page
    _post(client, ada, f"/topics/{topic}/mute")
    row = ada.row()
    assert row is not None and (row.followed_topics, row.muted_topics) == ([], [topic])
    members = _members(site_settings, topic)
    assert not members & set(_order(_for_you(client, ada)))
    _post(client, ada, f"/topics/{topic}/mute", undo="1")
    row = ada.row()
    assert row is not None and row.muted_topics == []


def test_a_topic_page_counts_its_followers_without_naming_them(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    topic = _topic_of_a_low_ranked_paper(site_settings)
    before = _followers(client, topic)
    _post(client, ada, f"/topics/{topic}/follow")
    page = client.get(f"/topics/{topic}").text
    assert _followers(client, topic) == before + 1 and ada.address not in page
    with _session(site_settings) as session:  # an unconfirmed address follows nothing
        found = reader.find(session, ada.address)
        assert found is not None
        found.status = SubscriberStatus.PENDING
    assert _followers(client, topic) == before
    with _session(site_settings) as session:
        found = reader.find(session, ada.address)
        assert found is not None
        found.status = SubscriberStatus.WEB
    _post(client, ada, f"/topics/{topic}/follow", undo="1")
    assert _followers(client, topic) == before


def _followers(client: TestClient, topic: int) -> int:
    found = re.search(r">(\d+) followers?</span></p>", client.get(f"/topics/{topic}").text)
    assert found is not None
    return int(found.group(1))


def _members(settings: Settings, topic: int) -> set[str]:
    with _session(settings) as session:
        rows = session.scalars(select(PaperTopic.arxiv_id).where(PaperTopic.topic_id == topic))
        return {arxiv_id.replace("/", "-") for arxiv_id in rows}


def test_muting_an_author_removes_their_papers(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    first = edition_ids(site_settings, "day", LAST_DAY)[0]
    key = _first_author(site_settings, first)
    _post(client, ada, f"/authors/{key}/mute")
    assert first.replace("/", "-") not in _order(_for_you(client, ada))
    assert client.post("/authors/nobody-at-all/follow", headers=ada.headers).status_code == 404


def _first_author(settings: Settings, arxiv_id: str) -> str:
    with _session(settings) as session:
        return str(
            session.scalar(
                select(PaperAuthor.author_key)
                .where(PaperAuthor.arxiv_id == arxiv_id)
                .order_by(PaperAuthor.position)
            )
        )


def test_save_unsave_and_the_reading_list_with_its_exports(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    other = edition_ids(site_settings, "day", LAST_DAY)[3]
    _post(client, ada, f"/papers/{other}/save")
    scripted = client.post(f"/papers/{HOSTILE_ID}/save", headers=ada.json)
    assert scripted.json() == {"arxiv_id": HOSTILE_ID, "saved": True}
    page = client.get("/reading-list", headers=ada.headers).text
    assert _order(page) == [HOSTILE_ID, other]  # newest save first
    assert "<script>alert(1)</script>" not in page
    assert f'action="/papers/{HOSTILE_ID}/unsave"' in page
    exported = client.get("/reading-list.json", headers=ada.headers).json()["reading_list"]
    assert [paper["arxiv_id"] for paper in exported] == [HOSTILE_ID, other]
    assert exported[0]["title"] == HOSTILE_TITLE
    bib = client.get("/reading-list.bib", headers=ada.headers)
    assert bib.headers["content-type"].startswith("application/x-bibtex")
    assert "@misc{arXiv:2512.99901," in bib.text
    left, right = r"{\textbraceleft}", r"{\textbraceright}"
    assert rf"{left}{left} 7*7 {right}{right} {left}\% raw \%{right}" in bib.text
    _post(client, ada, f"/papers/{HOSTILE_ID}/unsave")
    assert _order(client.get("/reading-list", headers=ada.headers).text) == [other]


def test_saved_papers_are_in_the_data_export_and_go_with_the_account(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    paper = edition_ids(site_settings, "day", LAST_DAY)[1]
    _post(client, ada, f"/papers/{paper}/save")
    found = ada.row()
    assert found is not None
    token = links.subscriber_token(site_settings, links.PREFERENCES, found, _now())
    for path in ("/subscriptions/preferences", "/subscriptions/export"):
        packed = client.get(path, params={"token": token}, headers={"Accept-Encoding": "br"})
        assert packed.status_code == 200 and "content-encoding" not in packed.headers
    exported = client.get("/subscriptions/export", params={"token": token}).json()
    assert exported["saved_papers"] == [paper]
    with _session(site_settings) as session:
        delete_everything(session, session.get_one(Subscriber, found.id))
    with _session(site_settings) as session:
        left = session.scalar(select(func.count()).where(SavedPaper.subscriber_id == found.id))
    assert left == 0


def test_the_data_export_leaves_out_every_key_the_reader_never_needs(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    _post(client, ada, f"/papers/{HOSTILE_ID}/save")
    _post(client, ada, "/for-you/feed")
    with _session(site_settings) as session:
        found = reader.find(session, ada.address)
        assert found is not None and found.feed_key is not None
        sign_in = session.get_one(SignInKey, ada.address)
        keys = {found.link_key, found.feed_key, sign_in.key}
        token = links.subscriber_token(site_settings, links.PREFERENCES, found, _now())
    for exported in (
        client.get("/for-you/data.json", headers=ada.headers),
        client.get("/subscriptions/export", params={"token": token}),
    ):
        assert exported.status_code == 200
        assert exported.json()["saved_papers"] == [HOSTILE_ID]
        assert not {"link_key", "feed_key", "key"} & set(exported.json())
        assert not [key for key in keys if key in exported.text]


def test_the_private_feed_works_until_revoked(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    assert "Make my private feed" in _for_you(client, ada)
    _post(client, ada, "/for-you/feed")
    page = _for_you(client, ada)
    token = re.search(r'/for-you/feed\.atom\?token=([^"]+)"', page)
    assert token is not None
    url = f"/for-you/feed.atom?token={token.group(1)}"
    feed = client.get(url)
    assert feed.status_code == 200 and feed.headers["content-type"].startswith("application/atom")
    assert "For you: #1 trending" in feed.text
    assert client.get(url.replace("atom", "json")).json()["title"] == "Paperboy: for you"
    # A feed reader may keep it privately and ask again: 304 while nothing changed.
    assert feed.headers["Cache-Control"] == "private, no-cache"
    again = client.get(url, headers={"If-None-Match": feed.headers["ETag"]})
    assert again.status_code == 304 and not again.content
    since = client.get(url, headers={"If-Modified-Since": feed.headers["Last-Modified"]})
    assert since.status_code == 304
    # Its self link opens the feed again.
    entries = feedparser.parse(feed.content)
    self_link = next(link.href for link in entries.feed.links if link.rel == "self")
    assert client.get(self_link.removeprefix(site_settings.public_base_url)).text == feed.text
    # An answer a private token opens is never compressed (BREACH): its size tells nothing.
    for path in (url, url.replace("atom", "json")):
        packed = client.get(path, headers={"Accept-Encoding": "br, gzip"})
        assert packed.status_code == 200 and len(packed.content) > 1024
        assert "content-encoding" not in packed.headers
    _post(client, ada, "/for-you/feed/revoke")
    assert client.get(url).status_code == 403
    assert client.get("/for-you/feed.rss?token=forged.token").status_code == 403


def test_this_is_me_likes_the_works_follows_the_topics_and_keeps_a_thumbs_down(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    key, works = _an_author_with_works(site_settings)
    _post(client, ada, f"/papers/{works[0]}/feedback", value="down")
    _post(client, ada, f"/authors/{key}/claim")
    found = ada.row()
    assert found is not None and found.claimed_author == key
    with _session(site_settings) as session:
        given = reader.feedback_of(session, found.id)
        topics = set(
            session.scalars(select(PaperTopic.topic_id).where(PaperTopic.arxiv_id.in_(works)))
        )
    assert given == {works[0]: -1} | dict.fromkeys(works[1:], 1)
    assert set(found.followed_topics) == topics
    page = client.get(f"/authors/{key}", headers=ada.headers).text
    assert "a claim covers every paper under" in page and 'action="/authors/' in page
    _post(client, ada, f"/authors/{key}/unclaim")
    found = ada.row()
    assert found is not None and found.claimed_author is None
    with _session(site_settings) as session:
        assert reader.feedback_of(session, found.id) == {works[0]: -1}


def _an_author_with_works(settings: Settings) -> tuple[str, list[str]]:
    with _session(settings) as session:
        key = session.scalar(
            select(PaperAuthor.author_key)
            .join(PaperTopic, PaperTopic.arxiv_id == PaperAuthor.arxiv_id)
            .group_by(PaperAuthor.author_key)
            .having(func.count(func.distinct(PaperAuthor.arxiv_id)) >= 2)
            .order_by(PaperAuthor.author_key)
        )
        assert key is not None
        works = sorted(
            session.scalars(select(PaperAuthor.arxiv_id).where(PaperAuthor.author_key == key))
        )
        return str(key), works


def test_a_button_posted_from_another_site_is_refused(client: TestClient, ada: SignedIn) -> None:
    headers = ada.headers | {"origin": "https://evil.example", "sec-fetch-site": "cross-site"}
    response = client.post(f"/papers/{HOSTILE_ID}/save", headers=headers, follow_redirects=False)
    assert response.status_code == 403
    assert ada.row() is None


def test_a_web_reader_who_subscribes_keeps_what_they_followed(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    topic = _topic_of_a_low_ranked_paper(site_settings)
    _post(client, ada, f"/topics/{topic}/follow")
    preferences = Preferences(
        categories=[],
        interests="",
        exclusions="",
        frequency=Frequency.DAILY,
        weekday=0,
        delivery_hour=7,
        time_zone="UTC",
        max_items=10,
    )
    address = parse_address(ada.address)
    with _session(site_settings) as session:
        # Signed in as the address (a stranger's request changes nothing: test_subscribe_again).
        pending = request_subscription(
            session, site_settings, address, preferences, "test", _now(), holder=address.key
        )
        assert pending is not None
        assert (pending.status, pending.followed_topics) == (SubscriberStatus.PENDING, [topic])


def test_every_card_of_the_trending_page_has_save_and_thumbs_as_plain_forms(
    client: TestClient,
) -> None:
    page = client.get("/").text
    assert page.count('data-reader="save"') == len(_order(page)) > 0
    assert 'name="value" value="up"' in page and 'href="/for-you"' in page


def test_an_id_no_topic_can_have_is_not_found(client: TestClient, ada: SignedIn) -> None:
    response = client.post(f"/topics/{10**30}/follow", headers=ada.headers)
    assert response.status_code == 404


def test_a_web_reader_downloads_their_data_and_deletes_it_from_for_you(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    paper = edition_ids(site_settings, "day", LAST_DAY)[2]
    _post(client, ada, f"/papers/{paper}/save")
    _post(client, ada, f"/papers/{paper}/feedback", value="up")
    data = client.get("/for-you/data.json", headers=ada.headers).json()
    assert (data["status"], data["saved_papers"]) == ("web", [paper])
    assert data["feedback"] == [{"arxiv_id": paper, "value": 1, "not_interested": False}]
    deleted = client.post("/for-you/delete", headers=ada.headers)
    assert deleted.status_code == 200 and "is deleted" in deleted.text
    assert ada.row() is None
    with _session(site_settings) as session:
        assert session.scalar(select(func.count()).where(SavedPaper.arxiv_id == paper)) == 0
    assert 'href="/signin"' in client.get("/for-you", headers=ada.headers).text


def test_a_pick_raised_by_liked_and_saved_papers_names_the_closest_in_page_and_digest(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    ranked = edition_ids(site_settings, "day", LAST_DAY)
    liked, saved = ranked[40], ranked[60]
    _post(client, ada, f"/papers/{liked}/feedback", value="up")
    _post(client, ada, f"/papers/{saved}/save")
    with _session(site_settings) as session:
        titles = {arxiv_id: _title(session, arxiv_id) for arxiv_id in (liked, saved)}
    mailed = _digest(site_settings, ada)
    whys = dict(mailed)
    assert (whys[liked], whys[saved]) == ("you liked it", "you saved it")
    close = [why for why in whys.values() if why.startswith("close to")]
    assert close, whys
    named = {
        f"close to “{titles[liked]}” that you liked",
        f"close to “{titles[saved]}” that you saved",
    }
    assert set(close) <= named
    page = html.unescape(_for_you(client, ada))  # the page's text, as the mail's
    for _arxiv_id, why in mailed:
        assert f"<strong>For you:</strong> {why}" in page


def _title(session: Session, arxiv_id: str) -> str:
    paper = session.get(Paper, arxiv_id)
    assert paper is not None
    return " ".join(paper.title.split())


def _paper_buttons(html: str, arxiv_id: str) -> str:
    """The paper page's own save and thumbs (the similar papers' cards come after)."""
    found = re.search(
        rf'<div class="meta reader-actions" data-paper="{arxiv_id}">(.*?)</div>', html, re.S
    )
    assert found is not None
    return found.group(1)


def test_the_paper_page_saves_and_thumbs_as_plain_forms_and_shows_the_readers_own(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    paper = edition_ids(site_settings, "day", LAST_DAY)[5]
    shared = client.get(f"/papers/{paper}")
    assert "private" not in shared.headers.get("cache-control", "")
    buttons = _paper_buttons(shared.text, paper)
    assert f'action="/papers/{paper}/save"' in buttons and 'value="up"' in buttons
    referer = {"referer": f"{client.base_url}/papers/{paper}"}
    for path, form in (
        (f"/papers/{paper}/save", {}),
        (f"/papers/{paper}/feedback", {"value": "up"}),
    ):
        answer = client.post(path, data=form, headers=ada.headers | referer, follow_redirects=False)
        assert (answer.status_code, answer.headers["location"]) == (303, f"/papers/{paper}")
    mine = client.get(f"/papers/{paper}", headers=ada.headers)
    assert mine.headers["cache-control"] == "private, no-store"
    buttons = _paper_buttons(mine.text, paper)
    assert f'action="/papers/{paper}/unsave"' in buttons and "Saved ✓" in buttons
    assert 'value="none" data-thumb="up" aria-pressed="true"' in buttons
    assert 'value="down" data-thumb="down" aria-pressed="false"' in buttons
    with _session(site_settings) as session:
        found = reader.find(session, ada.address)
        assert found is not None
        assert reader.saved_ids(session, found.id) == [paper]
        assert reader.feedback_of(session, found.id) == {paper: 1}


def _csrf_cookie(answer: httpx.Response, held: str) -> str:
    """The CSRF cookie a browser holds after ``answer`` (``held`` unless the answer sets one)."""
    found = re.search(rf"{CSRF_COOKIE}=([^;]+)", answer.headers.get("set-cookie", ""))
    return held if found is None else found.group(1)


def test_a_subscribe_form_open_in_another_tab_still_posts_after_for_you_is_viewed(
    base_url: str, ada: SignedIn
) -> None:
    form = httpx.get(f"{base_url}/subscribe", headers=ada.headers)
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert csrf is not None
    nonce = _csrf_cookie(form, "")
    browser = {"cookie": f"{ada.headers['cookie']}; {CSRF_COOKIE}={nonce}"}
    for_you = httpx.get(f"{base_url}/for-you", headers=browser)
    assert for_you.status_code == 200 and 'name="csrf"' in for_you.text
    nonce = _csrf_cookie(for_you, nonce)

    answer = httpx.post(
        f"{base_url}/subscribe",
        data={"email": ada.address, "csrf": html.unescape(csrf.group(1))},
        headers={"cookie": f"{ada.headers['cookie']}; {CSRF_COOKIE}={nonce}"},
    )

    assert answer.status_code == 200, answer.text
