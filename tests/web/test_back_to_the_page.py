"""A reader's button answers 303 back to the page it was pressed on, read from the Referer:
always a path of this site, whatever the Referer says (never ``//elsewhere``, which a browser
reads as another site)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urljoin, urlsplit

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts import reader
from accounts.subscriptions import delete_everything
from app.core.config import Settings
from app.web.forms import own_path
from tests.web.conftest import HF_PAPER
from tests.web.test_reader import SignedIn, _session

HOST = "paperboy.test"
SAVE = f"/papers/{HF_PAPER}/save"
HOSTILE_PATHS = (
    "//evil.example/x",
    "/\\evil.example/x",
    "/\\/evil.example",
    "/\t/evil.example",
    "///evil.example",
    "//evil.example?x=/papers",
)
# What a client can send in a header: visible ASCII, space, tab and the Latin-1 upper half.
HEADER_TEXT = st.text(
    st.characters(codec="latin-1", exclude_characters="\r\n\x7f", min_codepoint=0x09).filter(
        lambda c: c == "\t" or c >= " "
    ),
    max_size=40,
).map(lambda text: text.rstrip(" \t"))  # a header value cannot end with a space


def is_own_path(location: str, site: str) -> bool:
    """Whether a browser following ``location`` from ``site`` stays on ``site``."""
    return (
        location.startswith("/")
        and not location.startswith(("//", "/\\"))
        and location.isprintable()
        and "\\" not in location
        and urlsplit(urljoin(f"{site}/a/b", location)).netloc == urlsplit(site).netloc
    )


@pytest.fixture(scope="module")
def presser(site_settings: Settings) -> Iterator[SignedIn]:
    one = SignedIn(site_settings, "presser@example.org")
    yield one
    with _session(site_settings) as session:
        found = reader.find(session, one.address)
        if found is not None:
            delete_everything(session, found)


def _pressed_from(base_url: str, presser: SignedIn, referer: str) -> httpx.Response:
    headers = {b"cookie": presser.headers["cookie"].encode(), b"referer": referer.encode("latin-1")}
    return httpx.post(f"{base_url}{SAVE}", headers=headers, follow_redirects=False)


@pytest.mark.parametrize("path", HOSTILE_PATHS)
def test_a_referer_naming_another_site_by_its_path_sends_back_to_the_paper(
    base_url: str, presser: SignedIn, path: str
) -> None:
    answer = _pressed_from(base_url, presser, f"{base_url}{path}")
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/papers/{HF_PAPER}"


def test_a_referer_of_a_page_of_this_site_sends_back_to_it(
    base_url: str, presser: SignedIn
) -> None:
    answer = _pressed_from(base_url, presser, f"{base_url}/topics/3?day=2025-12-19")
    assert answer.headers["location"] == "/topics/3?day=2025-12-19"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=HEADER_TEXT)
def test_whatever_the_referer_the_button_answers_with_a_path_of_this_site(
    base_url: str, presser: SignedIn, path: str
) -> None:
    answer = _pressed_from(base_url, presser, f"{base_url}{path}")
    assert answer.status_code == 303
    assert is_own_path(answer.headers["location"], base_url)


@settings(max_examples=500)
@given(referer=st.text() | HEADER_TEXT.map(lambda path: f"http://{HOST}{path}"))
def test_the_page_to_go_back_to_is_a_path_of_this_site_or_none(referer: str) -> None:
    back = own_path(referer, HOST)
    assert back is None or is_own_path(back, f"http://{HOST}")
