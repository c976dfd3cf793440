"""A paper's discussion over HTTP: post, reply, edit, delete, report and moderate, without
JavaScript (forms answered 303 to the comment's anchor) and as a script asks (JSON); the
attacks on it (hostile Markdown, CSRF, another reader's comment, parallel posts, a long
thread of 2,000 comments, paged and light); its counts, API and feeds."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta
from itertools import count
from typing import Any

import feedparser
import httpx
import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator
from sqlalchemy import delete, func, select

from accounts import reader, signin, threads
from accounts.subscriptions import delete_everything
from accounts.threads import PAGE
from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import Comment, ModerationDecision, Moderator, SignInKey
from app.web.app import create_app
from app.web.forms import CSRF_COOKIE
from app.web.routes.voting import SESSION_COOKIE
from benchmarks.serve import THREAD_READER, seed_thread
from tests.app.test_comment_text import script_capable
from tests.servers import served
from tests.web.conftest import HF_PAPER
from tests.web.helpers import edition_ids
from tests.web.test_api_contract import _schema_of
from tests.web.test_trending_pages import MAX_ELEMENTS, elements

PAPER = HF_PAPER
_numbers = count()


class Reader:
    """A signed-in reader proven long ago, with the CSRF pair of a page they opened."""

    def __init__(self, client: TestClient, settings: Settings, proven_days_ago: float = 30) -> None:
        self.client, self.settings = client, settings
        self.address = f"talker{next(_numbers)}@example.org"
        now = datetime.now(UTC)
        with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as s:
            cookie = signin.session_token(settings, s, self.address, now)
            s.get_one(SignInKey, self.address).signed_in_at = now - timedelta(days=proven_days_ago)
        self.cookies = {"cookie": f"{SESSION_COOKIE}={cookie}"}
        page = client.get(f"/papers/{PAPER}", headers=self.cookies)
        self.csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)[1]  # type: ignore[index]
        nonce = page.headers["set-cookie"].split(f"{CSRF_COOKIE}=")[1].split(";")[0]
        self.cookies = {"cookie": f"{SESSION_COOKIE}={cookie}; {CSRF_COOKIE}={nonce}"}

    def post(self, path: str, **form: str) -> Any:
        headers = self.cookies
        return self.client.post(
            path,
            data={"csrf": self.csrf, **form},
            headers=headers,
            follow_redirects=False,
        )

    def comment(self, body: str, **form: str) -> int:
        sent = {
            "body": body,
            "once": f"o{next(_numbers)}",
            "name": f"Reader {self.address[6:-12]}",
        } | form
        answer = self.post(f"/papers/{PAPER}/comments", **sent)
        assert answer.status_code == 303, answer.text
        return int(answer.headers["location"].rsplit("-", 1)[1])

    def forget(self) -> None:
        with open_engine(self.settings) as engine, session_scope(make_session_factory(engine)) as s:
            found = reader.find(s, self.address)
            if found is not None:
                delete_everything(s, found)


@pytest.fixture
def ada(client: TestClient, site_settings: Settings) -> Iterator[Reader]:
    one = Reader(client, site_settings)
    yield one
    one.forget()


@pytest.fixture
def bob(client: TestClient, site_settings: Settings) -> Iterator[Reader]:
    one = Reader(client, site_settings)
    yield one
    one.forget()


def _stored(settings: Settings, comment_id: int) -> Comment | None:
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as s:
        found = s.get(Comment, comment_id)
        if found is not None:
            s.expunge(found)
        return found


def test_a_comment_posted_without_script_lands_at_its_anchor_with_its_name(
    client: TestClient, ada: Reader
) -> None:
    answer = ada.post(
        f"/papers/{PAPER}/comments", body="Nice *result*: $a_b*c_d$", once="x1", name="Ada L"
    )
    assert answer.status_code == 303
    assert re.fullmatch(rf"/papers/{PAPER}\?said=posted#comment-\d+", answer.headers["location"])
    page = client.get(f"/papers/{PAPER}").text
    assert "Ada L" in page and "<em>result</em>" in page and "$a_b*c_d$" in page
    assert ada.address not in page
    assert "Sign in</a> to comment" in page


def test_the_same_form_sent_twice_posts_once(ada: Reader, site_settings: Settings) -> None:
    first = ada.comment("once only", once="same")
    assert ada.comment("once only", once="same") == first


def test_a_reply_hangs_under_its_top_comment_and_a_reply_to_a_reply_too(
    client: TestClient, ada: Reader, bob: Reader, site_settings: Settings
) -> None:
    top = ada.comment("top")
    reply = bob.comment("reply", reply_to=str(top))
    deeper = ada.comment("deeper", reply_to=str(reply))
    assert _stored(site_settings, reply).parent_id == top  # type: ignore[union-attr]
    assert _stored(site_settings, deeper).parent_id == top  # type: ignore[union-attr]


def test_a_reader_edits_within_the_window_and_the_page_says_edited(
    client: TestClient, ada: Reader
) -> None:
    made = ada.comment("first words")
    assert ada.post(f"/comments/{made}/edit", body="second words").status_code == 303
    page = client.get(f"/papers/{PAPER}").text
    assert "second words" in page and "edited" in page and "first words" not in page


def test_another_readers_comment_cannot_be_edited_or_deleted(
    ada: Reader, bob: Reader, site_settings: Settings
) -> None:
    made = ada.comment("mine")
    assert bob.post(f"/comments/{made}/edit", body="taken over").status_code == 404
    assert bob.post(f"/comments/{made}/delete").status_code == 404
    assert _stored(site_settings, made).body == "mine"  # type: ignore[union-attr]


def test_a_deleted_comment_loses_its_text(ada: Reader, site_settings: Settings) -> None:
    made = ada.comment("regret")
    assert ada.post(f"/comments/{made}/delete").status_code == 303
    assert _stored(site_settings, made).body == ""  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "path",
    ["/papers/2512.14133/comments", "/comments/1/edit", "/comments/1/delete", "/comments/1/report"],
)
def test_every_comment_form_needs_the_csrf_pair(ada: Reader, path: str) -> None:
    answer = ada.client.post(
        path, data={"body": "forged", "reason": "x"}, headers=ada.cookies, follow_redirects=False
    )
    assert answer.status_code == 403


HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    "[data](data:text/html;base64,PHNjcmlwdD4=)",
    "<a href='x' onmouseover='alert(1)'>x</a>",
    "**<i>nested <b>broken</i>",
    "\u202eevil\u202c text\u200b",
]


@pytest.mark.parametrize("body", HOSTILE)
def test_hostile_markdown_is_kept_as_harmless_text(
    body: str, ada: Reader, site_settings: Settings
) -> None:
    made = ada.comment(body)
    html = _stored(site_settings, made).html  # type: ignore[union-attr]
    assert script_capable(html) == [] and "\u202e" not in html


def test_a_hundred_kilobyte_comment_is_refused_and_nothing_is_stored(
    ada: Reader, site_settings: Settings
) -> None:
    answer = ada.post(f"/papers/{PAPER}/comments", body="x" * 100_000, once="big", name="Big")
    assert answer.status_code == 400 and "at most 10000 characters" in answer.text
    with open_engine(site_settings) as engine, session_scope(make_session_factory(engine)) as s:
        assert s.scalar(select(func.count()).select_from(Comment).where(Comment.once == "big")) == 0


def test_a_display_name_may_not_be_an_address_or_taken(ada: Reader, bob: Reader) -> None:
    ada.comment("hello", name="Unique Name")
    taken = bob.post(f"/papers/{PAPER}/comments", body="hi", once="n1", name="unique NAME")
    assert taken.status_code == 409
    address = bob.post(f"/papers/{PAPER}/comments", body="hi", once="n2", name="me@example.org")
    assert address.status_code == 400


def test_a_comment_with_many_links_waits_for_a_moderator(client: TestClient, ada: Reader) -> None:
    links = " ".join(f"https://spam{n}.example" for n in range(8))
    made = ada.comment(links)
    assert f'id="comment-{made}"' not in client.get(f"/papers/{PAPER}").text
    assert "waiting for a moderator" in client.get(f"/papers/{PAPER}", headers=ada.cookies).text


def test_a_moderator_hides_a_reported_comment_and_its_author_reads_why(
    client: TestClient, ada: Reader, bob: Reader, site_settings: Settings
) -> None:
    made = ada.comment("rude words")
    assert bob.post(f"/comments/{made}/report", reason="rude").status_code == 303
    with open_engine(site_settings) as engine, session_scope(make_session_factory(engine)) as s:
        s.add(Moderator(email_key=bob.address, added_at=datetime.now(UTC)))
    try:
        queue = client.get("/moderation", headers=bob.cookies).text
        assert f"Comment {made}" in queue and "rude" in queue
        decided = client.post(
            f"/moderation/comments/{made}",
            data={"decision": "hidden", "reason": "Be kind"},
            headers=bob.cookies,
            follow_redirects=False,
        )
        assert decided.status_code == 303
        assert f'id="comment-{made}"' not in client.get(f"/papers/{PAPER}").text
        assert "Be kind" in client.get("/moderation/decisions", headers=ada.cookies).text
        stopped = client.post(
            f"/moderation/comments/{made}",
            data={"decision": "stopped", "reason": "Again"},
            headers=bob.cookies,
        )
        assert stopped.status_code == 200
        refused = ada.post(f"/papers/{PAPER}/comments", body="more", once="after-stop")
        assert refused.status_code == 403
    finally:
        with open_engine(site_settings) as engine, session_scope(make_session_factory(engine)) as s:
            s.execute(delete(Moderator).where(Moderator.email_key == bob.address))
            s.execute(delete(ModerationDecision).where(ModerationDecision.comment_id == made))


def test_a_new_reader_is_limited_sooner(client: TestClient, site_settings: Settings) -> None:
    fresh = Reader(client, site_settings, proven_days_ago=0.01)
    try:
        answers = [
            fresh.post(f"/papers/{PAPER}/comments", body=f"n{n}", once=f"new{n}", name="Fresh One")
            for n in range(4)
        ]
        assert [a.status_code for a in answers] == [303, 303, 429, 429]
    finally:
        fresh.forget()


def test_a_deleted_account_leaves_a_deleted_reader_without_text(
    client: TestClient, site_settings: Settings
) -> None:
    gone = Reader(client, site_settings)
    made = gone.comment("soon gone")
    export = client.get("/for-you/data.json", headers=gone.cookies).json()
    assert [c["markdown"] for c in export["comments"]] == ["soon gone"]
    assert (export["display_name"], export["reply_mail"]) == (f"Reader {gone.address[6:-12]}", True)
    gone.forget()
    found = _stored(site_settings, made)
    assert found is not None and found.body == "" and found.subscriber_id is None
    with open_engine(site_settings) as engine, session_scope(make_session_factory(engine)) as s:
        shown = threads.one(s, made, None)
    assert shown is not None and (shown.name, shown.html) == ("deleted reader", "")


def test_the_api_and_feeds_carry_the_thread_by_display_name(
    client: TestClient, ada: Reader
) -> None:
    top = ada.comment("feed me", name="Feeder")
    ada.comment("and a reply", reply_to=str(top))
    document = client.get("/api/openapi.json").json()
    template = "/api/papers/{arxiv_id}/comments"
    for path, status in ((PAPER, 200), ("not-an-id", 400)):
        answer = client.get(f"/api/papers/{path}/comments")
        schema = _schema_of(document, template, status, "application/json")
        assert answer.status_code == status
        assert list(Draft202012Validator(schema).iter_errors(answer.json())) == []
    listed = client.get(f"/api/papers/{PAPER}/comments").json()
    assert listed["count"] >= 1 and any(c["name"] == "Feeder" for c in listed["comments"])
    assert ada.address not in str(listed)
    assert client.get(f"/api/papers/{PAPER}").json()["siteComments"] == listed["count"]
    for path in (f"/papers/{PAPER}/comments.atom", "/discussion.atom"):
        parsed = feedparser.parse(client.get(path).content)
        assert not parsed.bozo and any(e.author == "Feeder" for e in parsed.entries)


def test_fifty_parallel_posts_and_edits_of_one_form_post_once_and_never_fail(
    site_settings: Settings, ada: Reader
) -> None:
    with served(create_app(site_settings)) as url, httpx.Client(base_url=url) as http:

        def send(_: int) -> int:
            return http.post(
                f"/papers/{PAPER}/comments",
                data={"csrf": ada.csrf, "body": "at once", "once": "parallel", "name": "Para"},
                headers=ada.cookies | {"origin": url},
            ).status_code

        def edit(n: int) -> int:
            return http.post(
                f"/comments/{made}/edit",
                data={"csrf": ada.csrf, "body": f"edit {n}"},
                headers=ada.cookies | {"origin": url},
            ).status_code

        with ThreadPoolExecutor(max_workers=10) as pool:
            codes = list(pool.map(send, range(50)))
            made = ada.comment("to be edited at once")
            codes += list(pool.map(edit, range(50)))
    assert all(code < 500 for code in codes), codes
    with open_engine(site_settings) as engine, session_scope(make_session_factory(engine)) as s:
        kept = s.scalar(select(func.count()).select_from(Comment).where(Comment.once == "parallel"))
        edited = s.get_one(Comment, made)
        assert (kept, edited.edited_at is not None) == (1, True)
        assert re.fullmatch(r"edit \d+", edited.body)


def test_a_script_gets_the_comment_as_the_page_shows_it_and_what_was_done(ada: Reader) -> None:
    script = {"accept": "application/json"}
    posted = ada.client.post(
        f"/papers/{PAPER}/comments",
        data={"csrf": ada.csrf, "body": "Scripted $x^2$", "once": "js1", "name": "Scripter"},
        headers=ada.cookies | script,
    ).json()
    made = posted["comment"]["id"]
    assert posted["said"] == "Posted."
    assert f'id="comment-{made}"' in posted["item"] and "Scripted $x^2$" in posted["item"]
    assert "Your reply" in posted["item"] and posted["once"] != "js1"
    edited = ada.client.post(
        f"/comments/{made}/edit",
        data={"csrf": ada.csrf, "body": "Rescripted"},
        headers=ada.cookies | script,
    ).json()
    assert edited["said"].startswith("Saved") and "· edited" in edited["item"]
    assert "Rescripted" in edited["item"] and "Your reply" not in edited["item"]


def test_without_script_the_thread_says_what_the_press_did(ada: Reader) -> None:
    made = ada.comment("said aloud")
    answer = ada.post(f"/comments/{made}/delete")
    assert answer.headers["location"] == f"/papers/{PAPER}?said=deleted#comment-{made}"
    page = ada.client.get(answer.headers["location"], headers=ada.cookies).text
    assert 'role="status" aria-live="polite" data-thread-said>Deleted: its text is gone' in page


@pytest.fixture
def long_thread(site_settings: Settings) -> Iterator[str]:
    """A paper discussed by 2,000 comments (1,900 top comments, 100 replies), stored in two
    inserts as the serving benchmark seeds its thread; removed afterwards."""
    paper = edition_ids(site_settings, "day", date(2025, 12, 17))[-1]
    with open_engine(site_settings) as engine:
        seed_thread(make_session_factory(engine), paper, 1_900, replies=100)
    yield paper
    with open_engine(site_settings) as engine, session_scope(make_session_factory(engine)) as s:
        s.execute(delete(Comment).where(Comment.arxiv_id == paper))
        found = reader.find(s, THREAD_READER)
        if found is not None:
            delete_everything(s, found)


def test_a_thread_of_two_thousand_comments_is_paged_and_stays_light(
    client: TestClient, long_thread: str
) -> None:
    first = client.get(f"/papers/{long_thread}").text
    assert "Discussion (2000)" in first and "Page 1 of 38" in first
    assert first.count('class="comment"') == PAGE + 50  # its top comments and their replies
    assert f'href="/papers/{long_thread}?comments=2#discussion" rel="next"' in first
    assert elements(first) <= MAX_ELEMENTS
    last = client.get(f"/papers/{long_thread}?comments=38").text
    assert 'rel="prev"' in last and 'rel="next"' not in last and "Page 38 of 38" in last
    assert last.count('class="comment"') == 1_900 - 37 * PAGE
    assert elements(last) <= MAX_ELEMENTS
