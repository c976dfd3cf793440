"""Following an organization without JavaScript (a form's POST, its 303 and the page after it)
and as the script asks (JSON, then the reader's state): the page's button, the line saying
where the reader stands and the follower count; a card's button; the data export; an
organization Paperboy never stored (404, nothing kept) and one no longer stored (leaving works).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from urllib.parse import quote

from fastapi.testclient import TestClient
from sqlalchemy import delete

from accounts import links
from app.core.config import Settings
from app.core.models import HfDailyPaper
from tests.web.conftest import HF_PAPER, LAST_DAY
from tests.web.helpers import edition_ids
from tests.web.test_follow_state import QUERY, _buttons, _followers, _press, _said
from tests.web.test_reader import SignedIn, _session, ada

__all__ = ["ada"]  # the signed-in reader fixture, used by name below

SLUG = "ByteDance-Seed"
PAGE = f"/organizations/{SLUG}"
GONE = "Gone-Lab"


def _followed(who: SignedIn) -> list[str]:
    found = who.row()
    return [] if found is None else found.followed_organizations


def test_following_an_organization_shows_its_undo_the_line_and_the_new_count(
    client: TestClient, ada: SignedIn
) -> None:
    before = client.get(PAGE, headers=ada.headers).text
    assert _buttons(before)[0] == "Follow this organization" and _said(before) == ""
    after = _press(client, ada, f"{PAGE}/follow", PAGE)
    assert _buttons(after)[0] == "Unfollow this organization"
    assert _said(after) == "✓ You follow this organization."
    assert _followers(after) == _followers(before) + 1
    assert re.search(
        r'<input type="hidden" name="undo" value="1">\s*<button[^>]*'
        r'aria-pressed="true"[^>]*>Unfollow this organization',
        after,
    )
    shared = client.get(PAGE)  # anyone else: the count, never who
    assert _buttons(shared.text)[0] == "Follow this organization" and _said(shared.text) == ""
    assert _followers(shared.text) == _followers(after) and ada.address not in shared.text
    undone = _press(client, ada, f"{PAGE}/follow", PAGE, undo="1")
    assert _buttons(undone)[0] == "Follow this organization" and _said(undone) == ""
    assert _followers(undone) == _followers(before) and _followed(ada) == []


def test_a_script_follows_in_json_and_the_readers_state_marks_every_card(
    client: TestClient, ada: SignedIn
) -> None:
    answer = client.post(f"{PAGE}/follow", headers=ada.json)
    assert answer.json() == {"organization": SLUG, "followed": True}
    state = client.get("/for-you/state.json", headers=ada.headers).json()
    assert state["followed_organizations"] == [SLUG]
    listing = client.get(f"/search?q={quote(QUERY)}").text
    assert f'id="p-{HF_PAPER}"' in listing
    assert f'data-follow-organization="{SLUG}" data-card>' in listing
    assert f'action="{PAGE}/follow" data-reader="follow"' in listing
    assert "Follow ByteDance Seed" in _buttons(listing)
    own_page = client.get(PAGE).text  # its cards leave the button to the page's own
    assert own_page.count("data-follow-organization=") == 1
    for_you = client.get("/for-you", headers=ada.headers).text
    assert "<h3>Organizations you follow</h3>" in for_you and ">ByteDance Seed</a>" in for_you
    again = client.post(f"{PAGE}/follow", headers=ada.json)  # twice: followed once
    assert again.status_code == 200 and _followed(ada) == [SLUG]
    client.post(f"{PAGE}/follow", data={"undo": "1"}, headers=ada.json)
    assert (
        client.get("/for-you/state.json", headers=ada.headers).json()["followed_organizations"]
        == []
    )


def test_an_organization_never_stored_is_not_found_and_nothing_is_kept(
    client: TestClient, ada: SignedIn
) -> None:
    client.post(f"{PAGE}/follow", headers=ada.json)
    for slug in ("Nobody-Here", "<script>alert(1)</script>"):
        answer = client.post(f"/organizations/{quote(slug)}/follow", headers=ada.json)
        assert answer.status_code == 404 and "<script>alert" not in answer.text
        assert client.get(f"/organizations/{quote(slug)}").status_code == 404
    too_long = client.post(f"/organizations/{'x' * 201}/follow", headers=ada.json)
    assert too_long.status_code == 400  # refused as too long, before any action
    assert _followed(ada) == [SLUG]
    stranger = client.post(f"{PAGE}/follow", headers={"accept": "application/json"})
    assert stranger.status_code == 401


@contextmanager
def _submitted_under(settings: Settings, slug: str) -> Iterator[None]:
    """A paper of the site also submitted under ``slug`` (one more daily page's row)."""
    row = HfDailyPaper(
        daily_date=date(2025, 12, 30),
        arxiv_id=edition_ids(settings, "day", LAST_DAY)[0],
        upvotes=1,
        ai_keywords=[],
        organization_name=slug,
        fetched_at=datetime(2025, 12, 30, tzinfo=UTC),
    )
    with _session(settings) as session:
        session.add(row)
    try:
        yield
    finally:
        _forget(settings, slug)


def _forget(settings: Settings, slug: str) -> None:
    with _session(settings) as session:
        session.execute(delete(HfDailyPaper).where(HfDailyPaper.organization_name == slug))


def test_unfollowing_an_organization_no_longer_stored_works(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    with _submitted_under(site_settings, GONE):
        _press(client, ada, f"/organizations/{GONE}/follow", f"/organizations/{GONE}")
        assert _followed(ada) == [GONE]
        _forget(site_settings, GONE)
        assert client.get(f"/organizations/{GONE}").status_code == 404
        for_you = client.get("/for-you", headers=ada.headers).text
        assert f'<a href="/organizations/{GONE}" class="bidi">{GONE}</a>' in for_you
        _press(client, ada, f"/organizations/{GONE}/follow", "/for-you", undo="1")
        assert _followed(ada) == []


def test_the_data_export_holds_the_followed_organizations(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    client.post(f"{PAGE}/follow", headers=ada.json)
    found = ada.row()
    assert found is not None
    token = links.subscriber_token(site_settings, links.PREFERENCES, found, datetime.now(UTC))
    for exported in (
        client.get("/for-you/data.json", headers=ada.headers),
        client.get("/subscriptions/export", params={"token": token}),
    ):
        assert exported.status_code == 200
        assert exported.json()["followed_organizations"] == [SLUG]
