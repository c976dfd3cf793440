"""A reader's library over HTTP: named lists, read state, private notes, "not interested", and
each list exported as RIS and CSL-JSON read back by real parsers, hostile titles included."""

from __future__ import annotations

import html
import json
import re
from datetime import timedelta

import rispy
from fastapi.testclient import TestClient
from jsonschema import Draft7Validator

from accounts import links, reader
from accounts.library import MAX_NOTE
from app.core.config import Settings
from app.core.models import SubscriberStatus
from tests.conftest import FIXTURES
from tests.web.conftest import HOSTILE_AUTHOR, HOSTILE_ID, HOSTILE_TITLE, LAST_DAY
from tests.web.helpers import edition_ids
from tests.web.test_reader import SignedIn, _for_you, _now, _order, _post, _session, ada

__all__ = ["ada"]  # the signed-in reader fixture, used by name below

CSL_SCHEMA = json.loads((FIXTURES / "web" / "csl-data.schema.json").read_text())


def _page(client: TestClient, who: SignedIn, query: str = "") -> str:
    response = client.get(f"/reading-list{query}", headers=who.headers)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "private, no-store"
    return response.text


def _lists(page: str) -> dict[str, int]:
    found = re.findall(r'<a href="/reading-list\?list=(\d+)" class="bidi">([^<]+)</a>', page)
    return {html.unescape(name): int(ident) for ident, name in found}


def _refused(client: TestClient, who: SignedIn, path: str, **form: str) -> str:
    answer = client.post(path, data=form, headers=who.headers, follow_redirects=False)
    assert answer.status_code == 400, answer.text
    return answer.text


def test_papers_are_filed_under_named_lists_and_a_deleted_list_loses_no_paper(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    first, second = edition_ids(site_settings, "day", LAST_DAY)[:2]
    _post(client, ada, "/reading-list/lists", name="  To   read ")
    _post(client, ada, "/reading-list/lists", name="<b>Group</b> & co")
    lists = _lists(_page(client, ada))
    assert set(lists) == {"To read", "<b>Group</b> & co"}
    assert "<b>Group</b>" not in _page(client, ada)  # a name is text, never markup
    _post(client, ada, f"/papers/{first}/file", list=str(lists["To read"]))  # saves it too
    _post(client, ada, f"/papers/{second}/save")
    assert _order(_page(client, ada, f"?list={lists['To read']}")) == [first]
    assert _order(_page(client, ada)) == [second, first]
    _post(client, ada, f"/reading-list/lists/{lists['To read']}/delete")
    assert set(_lists(_page(client, ada))) == {"<b>Group</b> & co"}
    assert _order(_page(client, ada)) == [second, first]


def test_a_named_lists_export_links_export_that_list_only(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    first, second = edition_ids(site_settings, "day", LAST_DAY)[:2]
    _post(client, ada, "/reading-list/lists", name="To read")
    to_read = _lists(_page(client, ada))["To read"]
    _post(client, ada, f"/papers/{first}/file", list=str(to_read))
    _post(client, ada, f"/papers/{second}/save")
    links_of = re.compile(r'<a href="(/reading-list\.[a-z.]+(?:\?[^"]*)?)">')
    named = links_of.findall(_page(client, ada, f"?list={to_read}"))
    assert named == [
        f"/reading-list.{suffix}?list={to_read}" for suffix in ("bib", "ris", "csl.json", "json")
    ]
    for link in named:
        exported = client.get(link, headers=ada.headers)
        assert exported.status_code == 200
        assert first in exported.text and second not in exported.text, link
    everything = links_of.findall(_page(client, ada))
    assert everything == [f"/reading-list.{s}" for s in ("bib", "ris", "csl.json", "json")]
    assert second in client.get(everything[-1], headers=ada.headers).text


def test_a_list_name_that_cannot_be_kept_is_refused_in_words_and_changes_nothing(
    client: TestClient, ada: SignedIn
) -> None:
    _post(client, ada, "/reading-list/lists", name="Reading group")
    assert "a list named “Reading group” already" in html.unescape(
        _refused(client, ada, "/reading-list/lists", name="reading GROUP")
    )
    assert "at most 80 characters; this one has 81" in _refused(
        client, ada, "/reading-list/lists", name="x" * 81
    )
    assert "needs a name" in _refused(client, ada, "/reading-list/lists", name="   ")
    assert list(_lists(_page(client, ada))) == ["Reading group"]


def test_another_readers_list_is_not_found(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    other = SignedIn(site_settings, f"other-{ada.address}")
    _post(client, other, "/reading-list/lists", name="Theirs")
    [theirs] = _lists(_page(client, other)).values()
    paper = edition_ids(site_settings, "day", LAST_DAY)[0]
    assert client.get(f"/reading-list?list={theirs}", headers=ada.headers).status_code == 404
    filed = client.post(f"/papers/{paper}/file", data={"list": str(theirs)}, headers=ada.headers)
    assert filed.status_code == 404
    gone = client.post(f"/reading-list/lists/{theirs}/delete", headers=ada.headers)
    assert gone.status_code == 404
    assert list(_lists(_page(client, other))) == ["Theirs"]


def test_ids_past_the_database_s_integers_are_refused_not_errors(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    huge = str(2**31)
    paper = edition_ids(site_settings, "day", LAST_DAY)[0]
    answers = [
        client.post(f"/reading-list/lists/{huge}/delete", headers=ada.headers),
        client.post(f"/papers/{paper}/file", data={"list": huge}, headers=ada.headers),
        client.post(f"/searches/{huge}/delete", headers=ada.headers),
        client.get(f"/reading-list?list={huge}", headers=ada.headers),
    ]
    assert [answer.status_code for answer in answers] == [400, 422, 400, 400]


def test_read_state_and_a_private_note_stay_with_a_saved_paper(
    client: TestClient, ada: SignedIn
) -> None:
    note = 'Read §3 first.\n<script>alert("note")</script>'
    _post(client, ada, f"/papers/{HOSTILE_ID}/note", note=note)
    _post(client, ada, f"/papers/{HOSTILE_ID}/read", value="read")
    page = _page(client, ada)
    assert _order(page) == [HOSTILE_ID]  # a note saves the paper
    assert '<script>alert("note")</script>' not in page
    assert note in html.unescape(page)
    assert "Read ✓" in page
    too_long = _refused(client, ada, f"/papers/{HOSTILE_ID}/note", note="n" * (MAX_NOTE + 1))
    assert f"at most {MAX_NOTE} characters" in too_long
    _post(client, ada, f"/papers/{HOSTILE_ID}/read", value="unread")
    page = _page(client, ada)
    assert "Mark read" in page and note in html.unescape(page)  # the note is kept
    exported = client.get("/reading-list.json", headers=ada.headers).json()["reading_list"]
    assert (exported[0]["note"], exported[0]["read"]) == (note, False)


def test_not_interested_hides_a_pick_counts_as_a_thumbs_down_and_can_be_taken_back(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    first = _order(_for_you(client, ada))[0]
    _post(client, ada, f"/papers/{first}/save")
    _post(client, ada, f"/papers/{first}/not-interested")
    assert first not in _order(_for_you(client, ada))
    assert first not in _order(_page(client, ada))
    found = ada.row()
    assert found is not None
    token = links.subscriber_token(site_settings, links.PREFERENCES, found, _now())
    exported = client.get("/subscriptions/export", params={"token": token}).json()
    assert {"arxiv_id": first, "value": -1, "not_interested": True} in exported["feedback"]
    _post(client, ada, f"/papers/{first}/feedback", value="up")
    assert first in _order(_for_you(client, ada))


def test_not_interested_keeps_the_note_and_list_and_taking_it_back_shows_them_again(
    client: TestClient, ada: SignedIn
) -> None:
    first = _order(_for_you(client, ada))[0]
    _post(client, ada, "/reading-list/lists", name="Group")
    [group] = _lists(_page(client, ada)).values()
    _post(client, ada, f"/papers/{first}/file", list=str(group))
    _post(client, ada, f"/papers/{first}/note", note="Ask Ben about §2.")
    _post(client, ada, f"/papers/{first}/not-interested")
    assert first not in _order(_page(client, ada))
    kept = client.get("/for-you/data.json", headers=ada.headers).json()["library"]
    assert kept == [
        {"arxiv_id": first, "list_id": group, "read_at": None, "note": "Ask Ben about §2."}
    ]
    paper = client.get(f"/papers/{first}", headers=ada.headers).text
    assert f'action="/papers/{first}/save"' in paper  # saving it again takes the hide back
    _post(client, ada, f"/papers/{first}/feedback", value="none")
    assert _order(_page(client, ada, f"?list={group}")) == [first]
    assert "Ask Ben about §2." in html.unescape(_page(client, ada))


def test_a_form_that_leaves_a_field_out_clears_nothing(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    _post(client, ada, "/reading-list/lists", name="Kept")
    [kept] = _lists(_page(client, ada)).values()
    _post(client, ada, f"/papers/{HOSTILE_ID}/file", list=str(kept))
    _post(client, ada, f"/papers/{HOSTILE_ID}/note", note="my note")
    with _session(site_settings) as session:
        found = reader.find(session, ada.address)
        assert found is not None
        found.status = SubscriberStatus.ACTIVE
    left = (_now() - timedelta(days=3)).date()
    _post(client, ada, "/for-you/away", since=left.isoformat())
    for path, field in (
        (f"/papers/{HOSTILE_ID}/note", "note"),
        (f"/papers/{HOSTILE_ID}/file", "list"),
        ("/for-you/away", "since"),
    ):
        answer = client.post(path, data={}, headers=ada.headers, follow_redirects=False)
        assert answer.status_code == 422, path
        assert f"{field} is missing" in answer.text
    exported = client.get("/reading-list.json", headers=ada.headers).json()["reading_list"]
    assert [paper["note"] for paper in exported] == ["my note"]
    assert _order(_page(client, ada, f"?list={kept}")) == [HOSTILE_ID]
    row = ada.row()
    assert row is not None and row.away_since == left
    _post(client, ada, f"/papers/{HOSTILE_ID}/note", note="")  # sent empty: cleared
    exported = client.get("/reading-list.json", headers=ada.headers).json()["reading_list"]
    assert [paper["note"] for paper in exported] == [""]


def test_a_list_name_that_shows_nothing_or_is_taken_but_for_case_is_refused_in_words(
    client: TestClient, ada: SignedIn
) -> None:
    for name in ("\u200b\u200b", "\u202e\u2066\ufeff", "\ufffd"):
        said = _refused(client, ada, "/reading-list/lists", name=name)
        assert "needs a character that shows" in html.unescape(said)
    _post(client, ada, "/reading-list/lists", name="graph neural networks")
    for name in ("GRAPH neural networks", "graph\u200b neural networks"):
        said = _refused(client, ada, "/reading-list/lists", name=name)
        assert "a list named “graph neural networks” already" in html.unescape(said)
    assert list(_lists(_page(client, ada))) == ["graph neural networks"]


def test_each_list_exports_as_ris_and_csl_json_that_real_parsers_read_back(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    other = edition_ids(site_settings, "day", LAST_DAY)[2]
    _post(client, ada, "/reading-list/lists", name="Hostile")
    [hostile] = _lists(_page(client, ada)).values()
    _post(client, ada, f"/papers/{HOSTILE_ID}/file", list=str(hostile))
    _post(client, ada, f"/papers/{HOSTILE_ID}/note", note="line one\nER  - injected")
    _post(client, ada, f"/papers/{other}/save")
    every = client.get("/api/papers/" + other).json()

    ris = client.get(f"/reading-list.ris?list={hostile}", headers=ada.headers)
    assert ris.headers["content-type"].startswith("application/x-research-info-systems")
    [entry] = rispy.loads(ris.text)
    assert entry["title"] == HOSTILE_TITLE
    assert HOSTILE_AUTHOR in entry["authors"]
    assert entry["id"] == HOSTILE_ID and entry["notes"] == ["line one ER - injected"]
    assert [
        e["id"] for e in rispy.loads(client.get("/reading-list.ris", headers=ada.headers).text)
    ] == [
        other,
        HOSTILE_ID,
    ]

    items = client.get("/reading-list.csl.json", headers=ada.headers).json()
    Draft7Validator(CSL_SCHEMA).validate(items)
    by_id = {item["id"]: item for item in items}
    assert by_id[HOSTILE_ID]["title"] == HOSTILE_TITLE
    assert {"literal": HOSTILE_AUTHOR} in by_id[HOSTILE_ID]["author"]
    assert by_id[other]["title"] == every["title"]
    # Each name whole, or split into given and family names that join back into it.
    written = [a.get("literal") or f"{a['given']} {a['family']}" for a in by_id[other]["author"]]
    assert written == [a["name"] for a in every["authors"]]
    only = client.get(f"/reading-list.csl.json?list={hostile}", headers=ada.headers).json()
    assert [item["id"] for item in only] == [HOSTILE_ID]


def test_the_library_needs_a_signed_in_reader(client: TestClient) -> None:
    for path in ("/reading-list.ris", "/reading-list.csl.json"):
        assert client.get(path, follow_redirects=False).headers["location"] == "/signin"
    created = client.post("/reading-list/lists", data={"name": "x"}, follow_redirects=False)
    assert created.headers["location"] == "/signin"


def test_a_subscriber_says_they_were_away_on_for_you_and_a_bad_day_is_refused(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    _post(client, ada, f"/papers/{HOSTILE_ID}/save")  # a row of their own
    with _session(site_settings) as session:
        found = reader.find(session, ada.address)
        assert found is not None
        found.status = SubscriberStatus.ACTIVE
    assert 'action="/for-you/away"' in _for_you(client, ada)
    left = (_now() - timedelta(days=3)).date()
    _post(client, ada, "/for-you/away", since=left.isoformat())
    row = ada.row()
    assert row is not None and row.away_since == left
    assert f"every day since {left.isoformat()}" in _for_you(client, ada)
    for asked in ("soon", (_now() - timedelta(days=40)).date().isoformat()):
        refused = client.post(
            "/for-you/away", data={"since": asked}, headers=ada.headers, follow_redirects=False
        )
        assert refused.status_code == 400
    _post(client, ada, "/for-you/away", since="")
    row = ada.row()
    assert row is not None and row.away_since is None
