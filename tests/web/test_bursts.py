"""A double click, or fifty: a reader's button or mailed link sent many times at once is
answered every time as if sent once, and acts once (one row), on a real server.

Each burst is fifty identical requests sent together over fifty connections to uvicorn; the
web app's steps run in its thread pool, so they reach the database at the same moment and
race for the same unique keys.
"""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from itertools import count
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from sqlalchemy import delete, func, select

from accounts import links, reader, signin
from accounts.addresses import parse_address
from accounts.preferences import parse_preferences
from accounts.subscriptions import delete_everything, request_subscription
from app.core import tokens
from app.core.config import Settings
from app.core.models import (
    DigestFeedback,
    SavedPaper,
    SignInKey,
    Subscriber,
    SubscriberStatus,
    UsedToken,
    Vote,
)
from app.web.forms import CSRF_COOKIE
from app.web.routes.voting import SESSION_COOKIE
from tests.web.conftest import HF_PAPER
from tests.web.test_reader import SignedIn, _session

BURST = 50
_numbers = count()


@pytest.fixture
def address(site_settings: Settings) -> Iterator[str]:
    """A mailbox of its own for the test, with all it made deleted afterwards."""
    mailbox = f"burst{next(_numbers)}@example.org"
    yield mailbox
    with _session(site_settings) as session:
        found = reader.find(session, mailbox)
        if found is not None:
            delete_everything(session, found)
        session.execute(delete(SignInKey).where(SignInKey.email_key == mailbox))


@pytest.fixture
def someone(site_settings: Settings, address: str) -> SignedIn:
    """A signed-in reader who has not acted yet (no subscriber row)."""
    return SignedIn(site_settings, address)


def _burst(
    base_url: str, path: str, data: dict[str, str], headers: dict[str, str]
) -> list[httpx.Response]:
    """``BURST`` identical POSTs sent at once, each on its own connection."""

    async def send_all() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=BURST, max_keepalive_connections=BURST)
        async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60) as client:
            return list(
                await asyncio.gather(
                    *(client.post(path, data=data, headers=headers) for _ in range(BURST))
                )
            )

    return asyncio.run(send_all())


def _statuses(answers: list[httpx.Response]) -> set[int]:
    return {answer.status_code for answer in answers}


def _count(settings: Settings, *where: object) -> int:
    with _session(settings) as session:
        return int(session.scalar(select(func.count()).where(*where)) or 0)  # type: ignore[arg-type]


def _subscriber_id(settings: Settings, email_key: str) -> int:
    with _session(settings) as session:
        found = reader.find(session, email_key)
        assert found is not None
        return found.id


def test_a_new_readers_first_thumbs_up_sent_fifty_times_at_once_makes_one_row_each(
    base_url: str, site_settings: Settings, someone: SignedIn
) -> None:
    answers = _burst(base_url, f"/papers/{HF_PAPER}/feedback", {"value": "up"}, someone.headers)
    assert _statuses(answers) == {303}
    assert _count(site_settings, Subscriber.email_key == someone.address) == 1
    subscriber_id = _subscriber_id(site_settings, someone.address)
    assert _count(site_settings, DigestFeedback.subscriber_id == subscriber_id) == 1


def test_a_save_sent_fifty_times_at_once_saves_once(
    base_url: str, site_settings: Settings, someone: SignedIn
) -> None:
    with _session(site_settings) as session:
        reader.reader_row(session, someone.address, datetime.now(UTC))  # they acted before
    answers = _burst(base_url, f"/papers/{HF_PAPER}/save", {}, someone.json)
    assert _statuses(answers) == {200}
    assert {answer.json()["saved"] for answer in answers} == {True}
    subscriber_id = _subscriber_id(site_settings, someone.address)
    assert _count(site_settings, SavedPaper.subscriber_id == subscriber_id) == 1


def test_a_vote_sent_fifty_times_at_once_counts_once(
    base_url: str, site_settings: Settings, someone: SignedIn
) -> None:
    answers = _burst(base_url, f"/votes/{HF_PAPER}", {}, someone.headers)
    assert _statuses(answers) == {200}
    assert {answer.json()["votes"] for answer in answers} == {1}
    assert _count(site_settings, Vote.voter == someone.address) == 1


def _token(url: str) -> str:
    return parse_qs(urlsplit(url).query)["token"][0]


def _button_form(base_url: str, path: str, token: str) -> tuple[dict[str, str], dict[str, str]]:
    """What a browser sends pressing the button of the page a mailed link opens: its form's
    fields, and the CSRF cookie the page set."""
    page = httpx.get(f"{base_url}{path}", params={"token": token})
    assert page.status_code == 200, page.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    nonce = re.search(rf"{CSRF_COOKIE}=([^;]+)", page.headers["set-cookie"])
    assert csrf is not None and nonce is not None
    fields = {"token": token, "csrf": html.unescape(csrf.group(1))}
    return fields, {"cookie": f"{CSRF_COOKIE}={nonce.group(1)}"}


def _spent(settings: Settings, purpose: str, token: str) -> int:
    claims = tokens.verify(settings.secret_key, token, purpose, datetime.now(UTC), None)
    return _count(settings, UsedToken.token_id == claims.token_id)


def _session_cookie(answer: httpx.Response) -> str:
    found = re.search(rf"{SESSION_COOKIE}=([^;]+)", answer.headers.get("set-cookie", ""))
    assert found is not None, answer.text
    return found.group(1)


def _sign_in_token(settings: Settings, address: str, now: datetime) -> str:
    """A sign-in link's token for ``address``, as its mail carries it."""
    with _session(settings) as session:
        key = signin.key_for(session, address, now)
    return _token(links.signin_url(settings, address, key, now))


def test_a_sign_in_link_pressed_fifty_times_at_once_signs_in_every_time_as_one_voter(
    base_url: str, site_settings: Settings, address: str
) -> None:
    now = datetime.now(UTC)
    token = _sign_in_token(site_settings, address, now)
    fields, cookie = _button_form(base_url, "/signin/confirm", token)

    answers = _burst(base_url, "/signin/confirm", fields, cookie)

    assert _statuses(answers) == {200}
    assert all("Signed in" in answer.text for answer in answers)
    assert _spent(site_settings, links.SIGNIN, token) == 1
    with _session(site_settings) as session:
        voters = {
            signin.voter(session, site_settings, _session_cookie(answer), now) for answer in answers
        }
    assert voters == {address}


def test_a_sign_in_link_pressed_moments_later_on_another_browser_is_refused_as_used(
    base_url: str, site_settings: Settings, address: str
) -> None:
    now = datetime.now(UTC)
    token = _sign_in_token(site_settings, address, now)
    first = _button_form(base_url, "/signin/confirm", token)
    other = _button_form(base_url, "/signin/confirm", token)  # its own CSRF cookie
    assert first[1] != other[1]

    signed_in = httpx.post(f"{base_url}/signin/confirm", data=first[0], headers=first[1])
    refused = httpx.post(f"{base_url}/signin/confirm", data=other[0], headers=other[1])

    assert signed_in.status_code == 200 and "Signed in" in signed_in.text
    assert refused.status_code == 400 and "used" in refused.text
    assert SESSION_COOKIE not in refused.headers.get("set-cookie", "")


def test_a_confirmation_link_pressed_fifty_times_at_once_subscribes_once(
    base_url: str, site_settings: Settings, address: str
) -> None:
    now = datetime.now(UTC)
    with _session(site_settings) as session:
        pending = request_subscription(
            session,
            site_settings,
            parse_address(address),
            parse_preferences({}, []),
            "burst-test",
            now,
        )
        assert pending is not None
        token = _token(links.confirm_url(site_settings, pending, now))
    fields, cookie = _button_form(base_url, "/subscribe/confirm", token)

    answers = _burst(base_url, "/subscribe/confirm", fields, cookie)

    assert _statuses(answers) == {200}
    assert all("Subscribed" in answer.text for answer in answers)
    assert _spent(site_settings, links.CONFIRM, token) == 1
    assert (
        _count(site_settings, Subscriber.email_key == address, Subscriber.status == "active") == 1
    )


def test_a_digests_more_like_this_pressed_fifty_times_at_once_is_one_thumb(
    base_url: str, site_settings: Settings, address: str
) -> None:
    now = datetime.now(UTC)
    with _session(site_settings) as session:
        subscriber = reader.reader_row(session, address, now)
        subscriber.status = SubscriberStatus.ACTIVE
        session.flush()
        token = _token(links.feedback_url(site_settings, subscriber, HF_PAPER, now))
    fields, cookie = _button_form(base_url, "/subscriptions/feedback", token)

    answers = _burst(base_url, "/subscriptions/feedback", fields | {"value": "1"}, cookie)

    assert _statuses(answers) == {200}
    subscriber_id = _subscriber_id(site_settings, address)
    assert _count(site_settings, DigestFeedback.subscriber_id == subscriber_id) == 1
