"""A follow button shows what it did without JavaScript: the form's POST answers 303 back to
the page, which shows the pressed button as its undo, a line saying where the reader stands
and the follower count with them in it; the same for following a search in the digest."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from fastapi.testclient import TestClient

from app.core.config import Settings
from tests.web.conftest import LAST_DAY
from tests.web.helpers import a_topic_of, edition_ids
from tests.web.test_reader import SignedIn, ada

__all__ = ["ada"]  # the signed-in reader fixture, used by name below

QUERY = "AnimaMimic"


def _press(client: TestClient, who: SignedIn, action: str, page: str, **form: str) -> str:
    """Press a button of ``page`` as a browser without the script does: POST, then the 303."""
    headers = who.headers | {"referer": f"http://testserver{page}"}
    answer = client.post(action, data=form, headers=headers, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"] == page
    back = client.get(answer.headers["location"], headers=who.headers)
    assert back.status_code == 200 and back.headers["cache-control"] == "private, no-store"
    return back.text


def _buttons(page: str) -> list[str]:
    return [
        html.unescape(text).strip()
        for text in re.findall(r'<button type="submit" class="reader-button"[^>]*>([^<]+)<', page)
    ]


def _said(page: str) -> str:
    """The line saying where the reader stands (empty: nowhere)."""
    found = re.search(r"data-stance-said>([^<]*)</p>", page)
    assert found is not None
    return html.unescape(found.group(1))


def _followers(page: str) -> int:
    found = re.search(r'data-followers="(\d+)"', page)
    assert found is not None
    return int(found.group(1))


def test_following_a_topic_shows_following_its_undo_and_the_new_count(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    topic, _papers = a_topic_of(site_settings, LAST_DAY)
    path = f"/topics/{topic}"
    before = client.get(path, headers=ada.headers).text
    assert "Follow this topic" in _buttons(before) and _said(before) == ""
    after = _press(client, ada, f"{path}/follow", path)
    assert _buttons(after)[:2] == ["Unfollow this topic", "Mute this topic"]
    assert _said(after) == "✓ You follow this topic."
    assert _followers(after) == _followers(before) + 1
    assert re.search(
        r'<input type="hidden" name="undo" value="1">\s*<button[^>]*'
        r'aria-pressed="true"[^>]*>Unfollow this topic',
        after,
    )
    muted = _press(client, ada, f"{path}/mute", path)
    assert _buttons(muted)[:2] == ["Follow this topic", "Unmute this topic"]
    assert _said(muted) == "✓ You muted this topic." and _followers(muted) == _followers(before)
    undone = _press(client, ada, f"{path}/mute", path, undo="1")
    assert _buttons(undone)[:2] == ["Follow this topic", "Mute this topic"]
    assert _said(undone) == ""


def test_following_an_author_shows_it_and_a_reader_not_signed_in_sees_the_plain_buttons(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    first = edition_ids(site_settings, "day", LAST_DAY)[0]
    paper = client.get(f"/papers/{first}").text
    found = re.search(r'href="(/authors/[^"]+)"', paper)
    assert found is not None
    path = html.unescape(found.group(1))
    before = _followers(client.get(path).text)
    after = _press(client, ada, f"{path}/follow", path)
    assert "Unfollow this author" in _buttons(after) and _said(after) == "✓ You follow this author."
    assert _followers(after) == before + 1
    shared = client.get(path)  # anyone else: the count, never who
    assert "Follow this author" in _buttons(shared.text) and _said(shared.text) == ""
    assert _followers(shared.text) == before + 1 and ada.address not in shared.text
    _press(client, ada, f"{path}/follow", path, undo="1")
    assert _followers(client.get(path).text) == before


def test_following_a_search_shows_it_on_the_search_page_and_unfollowing_undoes_it(
    client: TestClient, ada: SignedIn
) -> None:
    page = f"/search?q={quote(QUERY)}&category=cs.GR"
    before = client.get(page, headers=ada.headers).text
    assert "Follow in my digest" in _buttons(before) and "Following in your digest" not in before
    after = _press(client, ada, "/searches/save", page, q=QUERY, category="cs.GR")
    assert "✓ Following in your digest" in after
    assert _buttons(after)[-1] == "Unfollow this search"
    found = re.search(r'action="(/searches/\d+/delete)"', after)
    assert found is not None
    elsewhere = client.get(f"/search?q={quote(QUERY)}", headers=ada.headers).text
    assert "Follow in my digest" in _buttons(elsewhere)  # another category: another search
    undone = _press(client, ada, found.group(1), page)
    assert "Follow in my digest" in _buttons(undone) and "Following in your" not in undone
