"""The HTTP shell: User-Agent, retries with back-off, Retry-After, and clear failures."""

from __future__ import annotations

import gzip
import json

import pytest

from app.core.config import Settings
from ingest.errors import FetchError
from ingest.http import PoliteSession, get
from tests.conftest import FIXTURES
from tests.ingest.recorded_server import RecordedServer, Reply

PAPERHIVE = FIXTURES / "arxiv_oai" / "paperhive_listrecords_503_then_200.json"


def _recorded_503_then_200() -> list[Reply]:
    """The live 2018 OAI-PMH call that got ``503 Retry-After: 10`` before its page."""
    replies = []
    for call in json.loads(PAPERHIVE.read_text()):
        headers = dict(zip(call["rawHeaders"][::2], call["rawHeaders"][1::2], strict=True))
        kept = {name: headers[name] for name in ("Retry-After", "Content-Type") if name in headers}
        replies.append(Reply(call["status"], call["response"].encode(), kept))
    return replies


def test_every_request_names_paperboy_and_the_contact_address(
    live_settings: Settings, server: RecordedServer
) -> None:
    server.add("/ping", {}, Reply(body=b"pong"))
    with PoliteSession(live_settings, None) as session:
        # A library's own User-Agent (the arxiv package sends one) does not replace ours.
        session.get(f"{server.url}/ping", headers={"user-agent": "arxiv.py/4.0"})
    agent = server.arrivals[0].headers["User-Agent"]
    assert agent.startswith("Paperboy/")
    assert "mailto:ops@example.org" in agent


def test_a_503_with_retry_after_is_waited_out_then_the_page_is_served(
    live_settings: Settings, server: RecordedServer
) -> None:
    server.add("/oai2", {}, *_recorded_503_then_200())
    with PoliteSession(live_settings, None) as session:
        response = get(session, f"{server.url}/oai2")
    assert response.status_code == 200
    assert b"<ListRecords>" in response.content
    first, second = server.arrivals
    # Retry-After says 10 s; the settings cap a single wait at 0.2 s for the test.
    assert second.at - first.at >= live_settings.arxiv_max_wait_seconds


def test_a_server_that_keeps_answering_429_fails_after_the_retries(
    live_settings: Settings, server: RecordedServer
) -> None:
    server.add("/busy", {}, Reply(429, b"Too Many Requests", {"Retry-After": "0"}))
    with PoliteSession(live_settings, None) as session, pytest.raises(FetchError) as failure:
        session.get(f"{server.url}/busy")
    assert failure.value.status == 429
    assert "HTTP 429" in str(failure.value)
    assert len(server.arrivals) == live_settings.arxiv_max_retries + 1


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors_are_retried_and_then_reported(
    live_settings: Settings, server: RecordedServer, status: int
) -> None:
    server.add("/down", {}, Reply(status, b"<html>down</html>"))
    with PoliteSession(live_settings, None) as session, pytest.raises(FetchError, match="after 3"):
        session.get(f"{server.url}/down")


def test_back_off_without_retry_after_grows_between_attempts(
    live_settings: Settings, server: RecordedServer
) -> None:
    server.add("/down", {}, Reply(500))
    session = PoliteSession(live_settings, None, jitter=lambda: 1.0)
    with session, pytest.raises(FetchError):
        session.get(f"{server.url}/down")
    times = [arrival.at for arrival in server.arrivals]
    base = live_settings.arxiv_min_interval_seconds
    assert times[1] - times[0] >= base
    assert times[2] - times[1] >= 2 * base


def test_a_connection_reset_mid_body_is_retried_and_then_reported(
    live_settings: Settings, server: RecordedServer
) -> None:
    server.add("/cut", {}, Reply(200, b"<feed>" + b"x" * 1000 + b"</feed>", cut_after=100))
    session = PoliteSession(live_settings, None)
    with session, pytest.raises(FetchError, match="connection broken mid-body"):
        session.get(f"{server.url}/cut")
    assert len(server.arrivals) == 3


def test_a_reset_once_then_a_whole_body_succeeds(
    live_settings: Settings, server: RecordedServer
) -> None:
    body = b"<feed>" + b"x" * 1000 + b"</feed>"
    server.add("/cut", {}, Reply(200, body, cut_after=100), Reply(200, body))
    with PoliteSession(live_settings, None) as session:
        assert session.get(f"{server.url}/cut").content == body


def test_a_timeout_is_retried_and_then_reported(
    live_settings: Settings, server: RecordedServer
) -> None:
    settings = live_settings.model_copy(update={"http_timeout_seconds": 0.1})
    server.add("/slow", {}, Reply(200, b"late", delay=0.3))
    with PoliteSession(settings, None) as session, pytest.raises(FetchError, match="timed out"):
        session.get(f"{server.url}/slow")


def test_a_refused_status_is_an_error_with_the_status_and_not_retried(
    live_settings: Settings, server: RecordedServer
) -> None:
    with PoliteSession(live_settings, None) as session, pytest.raises(FetchError) as failure:
        get(session, f"{server.url}/missing")
    assert failure.value.status == 404
    assert len(server.arrivals) == 1


def test_a_response_larger_than_the_limit_is_a_clear_error_and_not_retried(
    live_settings: Settings, server: RecordedServer
) -> None:
    settings = live_settings.model_copy(update={"ingest_max_response_bytes": 1000})
    server.add("/big", {}, Reply(200, b"x" * 1001))
    with PoliteSession(settings, None) as session, pytest.raises(FetchError) as failure:
        session.get(f"{server.url}/big")
    assert str(failure.value) == (
        f"the response from {server.url}/big is larger than 1,000 bytes "
        "(PAPERBOY_INGEST_MAX_RESPONSE_BYTES)"
    )
    assert len(server.arrivals) == 1


def test_a_compressed_response_is_limited_by_its_size_once_decompressed(
    live_settings: Settings, server: RecordedServer
) -> None:
    settings = live_settings.model_copy(update={"ingest_max_response_bytes": 100_000})
    bomb = gzip.compress(b"\0" * 10_000_000)  # 10 KB that decompress to 10 MB
    server.add("/bomb", {}, Reply(200, bomb, {"Content-Encoding": "gzip"}))
    with PoliteSession(settings, None) as session, pytest.raises(FetchError, match="larger than"):
        session.get(f"{server.url}/bomb")


def test_a_response_of_exactly_the_limit_is_read_whole(
    live_settings: Settings, server: RecordedServer
) -> None:
    settings = live_settings.model_copy(update={"ingest_max_response_bytes": 1000})
    body = gzip.compress(b"y" * 1000)
    server.add("/edge", {}, Reply(200, body, {"Content-Encoding": "gzip"}))
    with PoliteSession(settings, None) as session:
        assert session.get(f"{server.url}/edge").content == b"y" * 1000


def test_header_numbers_in_another_script_are_not_numbers(
    live_settings: Settings, server: RecordedServer
) -> None:
    # "²" (a byte of Latin-1 a server may send) is a digit to str.isdigit, but int() refuses it.
    server.add("/odd", {}, Reply(429, b"busy", {"Retry-After": "\u00b2"}), Reply(body=b"ok"))
    with PoliteSession(live_settings, None) as session:
        assert get(session, f"{server.url}/odd").content == b"ok"
