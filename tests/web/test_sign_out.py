"""Signing out, on a real server: "Sign out" ends this browser's session; "Sign out
everywhere" draws the mailbox a new sign-in key, so every session cookie and sign-in link
issued before stops working, while what the reader keeps (saves, thumbs, follows, the
subscription, votes) stays and the unsubscribe links of mail already sent still work."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from itertools import count

import httpx
import pytest
from sqlalchemy import delete, select

from accounts import links, reader, signin
from accounts.reader import Stance
from accounts.subscriptions import delete_everything
from app.core.config import Settings
from app.core.models import SignInKey, SubscriberStatus, Vote
from app.web.routes.voting import SESSION_COOKIE
from tests.web.conftest import HF_PAPER, HOSTILE_ID
from tests.web.test_reader import SignedIn, _session

_numbers = count()
CROSS_SITE = {"origin": "https://evil.example", "sec-fetch-site": "cross-site"}


@pytest.fixture
def someone(site_settings: Settings) -> Iterator[SignedIn]:
    one = SignedIn(site_settings, f"leaving{next(_numbers)}@example.org")
    yield one
    with _session(site_settings) as session:
        found = reader.find(session, one.address)
        if found is not None:
            delete_everything(session, found)
        session.execute(delete(SignInKey).where(SignInKey.email_key == one.address))


@pytest.fixture
def browser(base_url: str, someone: SignedIn, site_settings: Settings) -> Iterator[httpx.Client]:
    """A browser signed in as the reader with a mailed sign-in link."""
    with httpx.Client(base_url=base_url) as client:
        _sign_in(client, site_settings, someone.address)
        yield client


def _sign_in(browser: httpx.Client, settings: Settings, address: str) -> None:
    """Open a sign-in link as mailed now, and press its button."""
    now = datetime.now(UTC)
    with _session(settings) as session:
        key = signin.key_for(session, address, now)
    link = links.signin_url(settings, address, key, now)
    page = browser.get(link.removeprefix(settings.public_base_url))
    assert "Signed in" in _press_on(browser, page, "/signin/confirm").text


def _signed_in(base_url: str, cookie: str) -> bool:
    state = httpx.get(f"{base_url}/for-you/state.json", cookies={SESSION_COOKIE: cookie})
    return bool(state.json()["signed_in"])


def _press(browser: httpx.Client, action: str, **headers: str) -> httpx.Response:
    """Open "For you" and press the button of the form posting to ``action``."""
    return _press_on(browser, browser.get("/for-you"), action, **headers)


def _press_on(
    browser: httpx.Client, page: httpx.Response, action: str, **headers: str
) -> httpx.Response:
    form = re.search(rf'<form method="post" action="{action}">(.*?)</form>', page.text, re.DOTALL)
    assert form is not None, f"no form for {action}"
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form[1]))
    data = {name: html.unescape(value) for name, value in fields.items()}
    return browser.post(action, data=data, headers=headers)


def test_signing_out_ends_this_browsers_session(
    base_url: str, browser: httpx.Client, someone: SignedIn
) -> None:
    assert "Signed in as" in browser.get("/for-you").text
    copy = browser.cookies[SESSION_COOKIE]
    answer = _press(browser, "/signout")
    assert answer.status_code == 200 and "Signed out" in answer.text
    assert SESSION_COOKIE not in browser.cookies
    assert browser.get("/for-you/state.json").json() == {"signed_in": False}
    assert browser.post(f"/votes/{HF_PAPER}").status_code == 401
    # The session itself is not revoked: a copy of the cookie (another browser, or stolen)
    # still signs in, until "Sign out everywhere".
    assert _signed_in(base_url, copy)


def _a_reader_with_everything(settings: Settings, address: str) -> str:
    """A subscriber who saved, thumbed, followed and voted; their unsubscribe link."""
    now = datetime.now(UTC)
    with _session(settings) as session:
        row = reader.reader_row(session, address, now)
        row.status, row.confirmed_at = SubscriberStatus.ACTIVE, now
        reader.save(session, row, HF_PAPER, now)
        reader.give_feedback(session, row, HOSTILE_ID, -1, now)
        reader.set_author(row, "lovelace_a", Stance.FOLLOW)
        session.add(Vote(voter=address, arxiv_id=HF_PAPER, voted_on=now.date(), created_at=now))
        session.flush()
        return links.unsubscribe_urls(settings, row, now).https


def _kept(settings: Settings, address: str) -> tuple[object, ...]:
    with _session(settings) as session:
        row = reader.find(session, address)
        assert row is not None
        votes = session.scalars(select(Vote.arxiv_id).where(Vote.voter == address)).all()
        return (
            row.status,
            reader.saved_ids(session, row.id),
            reader.feedback_of(session, row.id),
            row.followed_authors,
            votes,
        )


def test_signing_out_everywhere_ends_every_session_and_sign_in_link_and_keeps_the_data(
    base_url: str, browser: httpx.Client, someone: SignedIn, site_settings: Settings
) -> None:
    unsubscribe = _a_reader_with_everything(site_settings, someone.address)
    before = _kept(site_settings, someone.address)
    with _session(site_settings) as session:
        key = signin.key_for(session, someone.address, datetime.now(UTC))
    unused_link = links.signin_url(site_settings, someone.address, key, datetime.now(UTC))

    copy = browser.cookies[SESSION_COOKIE]
    answer = _press(browser, "/signout/everywhere")

    assert answer.status_code == 200 and "Signed out everywhere" in answer.text
    assert SESSION_COOKIE not in browser.cookies
    for cookie in (copy, _cookie(someone)):  # this browser's, and another's
        stolen = httpx.post(f"{base_url}/votes/{HOSTILE_ID}", cookies={SESSION_COOKIE: cookie})
        assert stolen.status_code == 401
        assert not _signed_in(base_url, cookie)
    refused = httpx.get(f"{base_url}/signin/confirm", params={"token": unused_link.split("=")[1]})
    assert refused.status_code == 400 and "no longer valid" in refused.text
    assert _kept(site_settings, someone.address) == before
    # Mail already sent keeps working: its unsubscribe link is bound to the subscription.
    left = httpx.post(f"{base_url}/unsubscribe", params={"token": unsubscribe.split("=")[1]})
    assert left.status_code == 200 and "Unsubscribed" in left.text
    assert _kept(site_settings, someone.address)[0] == SubscriberStatus.UNSUBSCRIBED
    # And the reader signs in again as before, with a new link.
    _sign_in(browser, site_settings, someone.address)
    assert browser.get("/for-you/state.json").json()["signed_in"] is True


@pytest.mark.parametrize("action", ["/signout", "/signout/everywhere"])
def test_signing_out_from_another_site_or_without_the_forms_pair_is_refused(
    base_url: str, browser: httpx.Client, someone: SignedIn, action: str
) -> None:
    copy = browser.cookies[SESSION_COOKIE]
    assert _press(browser, action, **CROSS_SITE).status_code == 403
    forged = browser.post(action, data={"csrf": "0" * 64})
    assert forged.status_code == 403 and "Form expired" in forged.text
    assert browser.cookies[SESSION_COOKIE] == copy
    assert _signed_in(base_url, copy)


def _cookie(who: SignedIn) -> str:
    return who.headers["cookie"].partition("=")[2]
