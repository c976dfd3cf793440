"""Lists a group shares over HTTP, without JavaScript (forms answered 303 to the list's page,
which says what was done) and as a script asks (JSON): publishing, feeds, following, copying,
co-editors invited by a signed, mailed, expiring link, and who made each change; and the
attacks: another reader's list, a forged or expired invitation, hostile words, an unpublished
list, and many adds at once."""

from __future__ import annotations

import html
import json
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from email import message_from_bytes, policy
from urllib.parse import urlsplit

import feedparser
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from accounts import links
from app.core import tokens
from app.core.config import Settings
from app.core.models import ListChange, OutboxMail, SharedList, SharedListPaper
from tests.web.conftest import LAST_DAY
from tests.web.helpers import edition_ids
from tests.web.test_library import _lists, _page
from tests.web.test_reader import SignedIn, _now, _post, _session, ada

__all__ = ["ada"]
HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">'


def _shared(
    client: TestClient, who: SignedIn, name: str, papers: list[str], publish: bool = True
) -> str:
    """A list of ``who``'s with ``papers`` filed under it, shared; its slug."""
    _post(client, who, "/reading-list/lists", name=name)
    list_id = _lists(_page(client, who))[name]
    for paper in papers:
        _post(client, who, f"/papers/{paper}/file", list=str(list_id))
    form = {"title": name, "description": "For the Friday club", "shown_name": "Ada's lab"}
    answer = client.post(
        f"/reading-list/lists/{list_id}/share",
        data=form | ({"publish": "yes"} if publish else {}),
        headers=who.headers,
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"].endswith("?done=shared")
    return answer.headers["location"].removeprefix("/lists/").split("?")[0]


def _other(settings: Settings, ada: SignedIn, name: str) -> SignedIn:
    return SignedIn(settings, f"{name}-{ada.address}")


def _order(page: str) -> list[str]:
    return [m.replace("-", "/") if "/" in m else m for m in re.findall(r'<li id="p-([^"]+)"', page)]


def test_a_published_list_shows_its_papers_notes_as_chosen_and_who_added_them(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    first, second = edition_ids(site_settings, "day", LAST_DAY)[:2]
    _post(client, ada, f"/papers/{first}/note", note="Read section 3 first")
    slug = _shared(client, ada, "Journal club", [first, second])
    public = client.get(f"/lists/{slug}")
    assert public.status_code == 200
    assert set(re.findall(r'<li id="p-([^"]+)"', public.text)) == {first, second}
    assert "added by Ada&#39;s lab" in public.text or "added by Ada's lab" in public.text
    assert ada.address not in public.text
    assert "Read section 3 first" not in public.text  # notes hidden until the owner shows them
    done = client.post(
        f"/lists/{slug}/notes", data={"shown": "yes"}, headers=ada.headers, follow_redirects=True
    )
    assert "Who sees the notes is changed." in done.text
    assert "Read section 3 first" in client.get(f"/lists/{slug}").text


def test_an_unpublished_list_is_not_found_by_others_and_its_feeds_neither(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    paper = edition_ids(site_settings, "day", LAST_DAY)[0]
    slug = _shared(client, ada, "Private club", [paper], publish=False)
    assert client.get(f"/lists/{slug}", headers=ada.headers).status_code == 200
    other = _other(site_settings, ada, "eve")
    assert client.get(f"/lists/{slug}", headers=other.headers).status_code == 404
    assert client.get(f"/lists/{slug}").status_code == 404
    assert client.get(f"/lists/{slug}/feed.atom").status_code == 404
    _post(client, ada, f"/lists/{slug}/publish", shown="yes")
    assert client.get(f"/lists/{slug}").status_code == 200
    _post(client, ada, f"/lists/{slug}/publish", shown="")
    assert client.get(f"/lists/{slug}").status_code == 404


def test_the_feeds_of_a_list_parse_and_hold_its_papers(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    papers = edition_ids(site_settings, "day", LAST_DAY)[:3]
    slug = _shared(client, ada, "Feeds club", papers)
    for fmt in ("atom", "rss"):
        answer = client.get(f"/lists/{slug}/feed.{fmt}")
        assert answer.status_code == 200
        parsed = feedparser.parse(answer.content)
        assert not parsed.bozo, parsed.bozo_exception
        assert parsed.feed.title == "Paperboy list: Feeds club"
        assert {entry.link.rsplit("/papers/", 1)[1] for entry in parsed.entries} == set(papers)
    feed = json.loads(client.get(f"/lists/{slug}/feed.json").content)
    assert feed["version"] == "https://jsonfeed.org/version/1.1"
    assert {item["url"].rsplit("/papers/", 1)[1] for item in feed["items"]} == set(papers)


def test_another_readers_list_cannot_be_edited_or_deleted(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    first, second = edition_ids(site_settings, "day", LAST_DAY)[:2]
    slug = _shared(client, ada, "Ours", [first])
    eve = _other(site_settings, ada, "eve")
    attempts = {
        f"/lists/{slug}/papers": {"arxiv_id": second},
        f"/lists/{slug}/papers/remove": {"arxiv_id": first},
        f"/lists/{slug}/papers/note": {"arxiv_id": first, "note": "mine now"},
        f"/lists/{slug}/rename": {"title": "Eve's"},
        f"/lists/{slug}/publish": {"shown": ""},
        f"/lists/{slug}/notes": {"shown": "yes"},
        f"/lists/{slug}/editors": {"email": eve.address},
    }
    for path, form in attempts.items():
        answer = client.post(path, data=form, headers=eve.headers, follow_redirects=False)
        assert answer.status_code == 404, path
    [theirs] = [i for n, i in _lists(_page(client, ada)).items() if n == "Ours"]
    assert (
        client.post(f"/reading-list/lists/{theirs}/delete", headers=eve.headers).status_code == 404
    )
    shared = client.post(
        f"/reading-list/lists/{theirs}/share", data={"title": "x"}, headers=eve.headers
    )
    assert shared.status_code == 404
    page = client.get(f"/lists/{slug}").text
    assert (
        re.findall(r'<li id="p-([^"]+)"', page) == [first] and '<h1 class="bidi">Ours</h1>' in page
    )


def test_every_list_form_sent_from_another_site_is_refused_and_changes_nothing(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    first, second = edition_ids(site_settings, "day", LAST_DAY)[:2]
    slug = _shared(client, ada, "Guarded", [first])
    elsewhere = ada.headers | {"origin": "https://evil.example", "sec-fetch-site": "cross-site"}
    attempts = {
        f"/lists/{slug}/papers": {"arxiv_id": second},
        f"/lists/{slug}/papers/remove": {"arxiv_id": first},
        f"/lists/{slug}/rename": {"title": "Taken"},
        f"/lists/{slug}/publish": {"shown": ""},
        f"/lists/{slug}/editors": {"email": "eve@example.org"},
        f"/lists/{slug}/follow": {},
        f"/lists/{slug}/copy": {},
    }
    for path, form in attempts.items():
        answer = client.post(path, data=form, headers=elsewhere, follow_redirects=False)
        assert answer.status_code == 403, path
    page = client.get(f"/lists/{slug}", headers=ada.headers).text
    assert re.findall(r'<li id="p-([^"]+)"', page) == [first] and ">Guarded</h1>" in page
    assert "0 followers" in page and "eve@example.org" not in page


def test_hostile_names_descriptions_and_notes_show_as_text(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    paper = edition_ids(site_settings, "day", LAST_DAY)[0]
    _post(client, ada, "/reading-list/lists", name=HOSTILE[:80])
    list_id = _lists(_page(client, ada))[HOSTILE[:80]]
    _post(client, ada, f"/papers/{paper}/file", list=str(list_id))
    form = {
        "title": HOSTILE[:80],
        "description": HOSTILE,
        "shown_name": "<b>me</b>",
        "publish": "yes",
    }
    answer = client.post(
        f"/reading-list/lists/{list_id}/share",
        data=form,
        headers=ada.headers,
        follow_redirects=False,
    )
    slug = answer.headers["location"].removeprefix("/lists/").split("?")[0]
    assert re.fullmatch(r"[a-z0-9-]+", slug)
    _post(client, ada, f"/lists/{slug}/papers/note", arxiv_id=paper, note=HOSTILE)
    _post(client, ada, f"/lists/{slug}/notes", shown="yes")
    page = client.get(f"/lists/{slug}").text
    assert "<script>" not in page and 'onerror="' not in page and "<b>me</b>" not in page
    assert html.escape(HOSTILE[:40], quote=False) in page
    atom = feedparser.parse(client.get(f"/lists/{slug}/feed.atom").content)
    assert not atom.bozo and atom.feed.title.endswith(HOSTILE[:80])


def test_bad_input_is_refused_in_words_and_loses_nothing(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    paper = edition_ids(site_settings, "day", LAST_DAY)[0]
    slug = _shared(client, ada, "Careful", [paper])
    for path, form, words in [
        (f"/lists/{slug}/rename", {"title": "x" * 81}, "at most 80 characters"),
        (f"/lists/{slug}/papers/note", {"arxiv_id": paper, "note": "n" * 2001}, "at most 2000"),
        (f"/lists/{slug}/editors", {"email": "not an address"}, "email address"),
    ]:
        answer = client.post(path, data=form, headers=ada.headers, follow_redirects=False)
        assert answer.status_code in (400, 422), path
        assert words in html.unescape(answer.text), path
    assert (
        client.post(
            f"/lists/{slug}/papers", data={"arxiv_id": "9999.99999"}, headers=ada.headers
        ).status_code
        == 404
    )
    page = client.get(f"/lists/{slug}").text
    assert '<h1 class="bidi">Careful</h1>' in page and re.findall(r'<li id="p-([^"]+)"', page) == [
        paper
    ]


def _invitation_url(settings: Settings, recipient: str) -> str:
    with _session(settings) as session:
        row = session.scalars(
            select(OutboxMail)
            .where(OutboxMail.recipient == recipient)
            .order_by(OutboxMail.id.desc())
        ).first()
        assert row is not None
        mail = message_from_bytes(row.message, policy=policy.default)
    body = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    [url] = re.findall(r"https?://\S+/lists/invitation\?token=\S+", body)
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def test_an_invited_editor_edits_the_list_until_removed_and_each_change_says_who(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    first, second = edition_ids(site_settings, "day", LAST_DAY)[:2]
    slug = _shared(client, ada, "Lab club", [first])
    bob = _other(site_settings, ada, "bob")
    done = client.post(
        f"/lists/{slug}/editors",
        data={"email": bob.address},
        headers=ada.headers,
        follow_redirects=True,
    )
    assert "The invitation is on its way." in done.text
    link = _invitation_url(site_settings, bob.address)
    assert client.get(link).status_code == 200  # opening it changes nothing
    assert (
        client.post(
            f"/lists/{slug}/papers", data={"arxiv_id": second}, headers=bob.headers
        ).status_code
        == 404
    )
    token = link.split("token=")[1]
    eve = _other(site_settings, ada, "eve")
    stolen = client.post(
        "/lists/invitation", data={"token": token}, headers=eve.headers, follow_redirects=False
    )
    assert stolen.status_code == 400
    joined = client.post(
        "/lists/invitation",
        data={"token": token, "shown_name": "Bob"},
        headers=bob.headers,
        follow_redirects=False,
    )
    assert joined.headers["location"] == f"/lists/{slug}?done=joined"
    _post(client, bob, f"/lists/{slug}/papers", arxiv_id=second)
    _post(client, bob, f"/lists/{slug}/rename", title="Lab journal club")
    page = client.get(f"/lists/{slug}").text
    assert "added by Bob" in page and "Lab journal club" in page
    assert "Bob</span> renamed the list to" in page
    assert bob.address not in page and ada.address not in page
    with _session(site_settings) as session:
        kinds = session.scalars(select(ListChange.kind).order_by(ListChange.id)).all()
    assert [k.value for k in kinds][-2:] == ["added", "renamed"]
    _post(client, bob, f"/lists/{slug}/papers/remove", arxiv_id=second)
    owners_page = client.get(f"/lists/{slug}", headers=ada.headers).text
    [bobs_key] = re.findall(r'name="email_key" value="([^"]+)"', owners_page)
    _post(client, ada, f"/lists/{slug}/editors/remove", email_key=html.unescape(bobs_key))
    renamed = client.post(f"/lists/{slug}/rename", data={"title": "Bob's"}, headers=bob.headers)
    assert renamed.status_code == 404
    assert re.findall(r'<li id="p-([^"]+)"', client.get(f"/lists/{slug}").text) == [first]


def test_an_expired_or_forged_invitation_is_refused(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    slug = _shared(client, ada, "Guarded", [])
    bob = _other(site_settings, ada, "bob")
    _post(client, ada, f"/lists/{slug}/editors", email=bob.address)
    token = _invitation_url(site_settings, bob.address).split("token=")[1]
    with _session(site_settings) as session:
        list_id = session.scalars(select(SharedList.list_id).where(SharedList.slug == slug)).one()
    old = links.list_invitation_url(
        site_settings, bob.address, (list_id, "0" * 32), _now() - timedelta(days=8)
    ).split("token=")[1]
    forged = tokens.issue(
        "not-the-secret", links.LIST_INVITE, bob.address, _now(), list=str(list_id), key="k"
    )
    body, _, signature = token.partition(".")
    tampered = f"{body[:-2]}AA.{signature}"
    for bad, reason in [(old, "expired"), (forged, "tampered"), (tampered, "tampered")]:
        page = client.get(f"/lists/invitation?token={bad}")
        assert page.status_code == 400 and reason in page.text
        sent = client.post("/lists/invitation", data={"token": bad}, headers=bob.headers)
        assert sent.status_code == 400
    withdrawn = links.list_invitation_url(site_settings, bob.address, (list_id, "0" * 32), _now())
    sent = client.post(
        "/lists/invitation", data={"token": withdrawn.split("token=")[1]}, headers=bob.headers
    )
    assert sent.status_code == 400 and "withdrawn" in sent.text
    assert (
        client.post(
            f"/lists/{slug}/rename", data={"title": "Mine"}, headers=bob.headers
        ).status_code
        == 404
    )


def test_a_reader_follows_and_copies_a_published_list(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    papers = edition_ids(site_settings, "day", LAST_DAY)[:2]
    slug = _shared(client, ada, "Worth copying", papers)
    carol = _other(site_settings, ada, "carol")
    done = client.post(f"/lists/{slug}/follow", headers=carol.headers, follow_redirects=True)
    assert "You follow this list" in done.text and "1 follower" in done.text
    copied = client.post(f"/lists/{slug}/copy", headers=carol.json)
    assert copied.status_code == 200
    list_id = copied.json()["list_id"]
    mine = client.get(f"/reading-list?list={list_id}", headers=carol.headers).text
    assert set(re.findall(r'<li class="paper" id="p-([^"]+)"', mine)) == set(papers)
    exported = client.get("/for-you/data.json", headers=carol.headers).json()
    assert exported["followed_lists"] == [slug]
    owner = client.get("/for-you/data.json", headers=ada.headers).json()
    assert [row["slug"] for row in owner["shared_lists"]] == [slug]


def test_fifty_parallel_adds_of_one_paper_make_one_entry_and_no_error(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    paper = edition_ids(site_settings, "day", LAST_DAY)[3]
    slug = _shared(client, ada, "Busy", [])

    def add(_: int) -> int:
        return client.post(
            f"/lists/{slug}/papers", data={"arxiv_id": paper}, headers=ada.json
        ).status_code

    with ThreadPoolExecutor(max_workers=10) as pool:
        codes = list(pool.map(add, range(50)))
    assert set(codes) == {200}
    with _session(site_settings) as session:
        count = session.scalar(
            select(func.count())
            .select_from(SharedListPaper)
            .where(SharedListPaper.arxiv_id == paper)
        )
        added = session.scalar(
            select(func.count()).select_from(ListChange).where(ListChange.subject == paper)
        )
    assert (count, added) == (1, 1)
