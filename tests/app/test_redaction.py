"""No credential reaches a log: the redaction itself, a real logger, and the web server
started as production starts it, asked for every URL that carries a token (plain and JSON
logs, development and production)."""

from __future__ import annotations

import io
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.logs import RedactCredentials, carries_token, install_redaction, redact
from tests.app.test_main import wait_for
from tests.conftest import Database
from tests.servers import free_port

# Shaped as a real one (base64url, a dot, base64url); only its being found matters here.
TOKEN = "eyJwIjoiY29uZmlybSJ9.U2VjcmV0U2lnbmF0dXJlT2ZUaGVMaW5r"
# Every route that reads a credential from its URL (the mailed links and the private feed).
TOKENED_GETS = (
    "/subscribe/confirm?token={}",
    "/subscriptions/preferences?token={}",
    "/subscriptions/feedback?token={}",
    "/subscriptions/export?token={}",
    "/unsubscribe?token={}",
    "/signin/confirm?token={}",
    "/for-you/feed.rss?token={}",
    "/for-you/feed.atom?token={}",
    "/for-you/feed.json?token={}",
    "/subscriptions/preferences?from=mail&token={}&again=1",
    "/unsubscribe?%74oken={}",  # the app reads the percent-encoded name as "token" too
)
# A mail client's one-click unsubscribe (RFC 8058) posts to the link itself.
TOKENED_POSTS = ("/unsubscribe?token={}",)
PUBLIC_HOST = "papers.example.org"
PRODUCTION = {
    "PAPERBOY_ENV": "production",
    "PAPERBOY_SECRET_KEY": "kq3Vx9-ZpL2mN8rT4wYb7cHdJ6fGs1aE0uIoPxQzR5v",
    "PAPERBOY_CONTACT_EMAIL": f"ops@{PUBLIC_HOST}",
    "PAPERBOY_PUBLIC_BASE_URL": f"https://{PUBLIC_HOST}",
}


def serve_and_log(database: Database, tmp_path: Path, settings: dict[str, str]) -> str:
    """Starts ``uvicorn app.web.app:create_app --factory`` (access log on), asks for every
    tokened URL, stops it and returns everything it wrote."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    environment |= {
        "PAPERBOY_DATA_DIR": str(tmp_path),
        "PAPERBOY_DATABASE_URL": database.settings.database_url,
        "PAPERBOY_SEARCH_PRELOAD": "false",  # no model to load: a fast start
    } | settings
    port = free_port()
    command = ["-m", "uvicorn", "app.web.app:create_app", "--factory", "--port", str(port)]
    server = subprocess.Popen(
        [sys.executable, *command],
        env=environment,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # uvicorn logs access to stdout
    )
    try:
        site = f"http://127.0.0.1:{port}"
        assert wait_for(f"{site}/healthz") == 200
        with httpx.Client(base_url=site, headers={"Host": PUBLIC_HOST}) as client:
            for url in TOKENED_GETS:
                client.get(url.format(TOKEN))
            for url in TOKENED_POSTS:
                client.post(url.format(TOKEN), data={"List-Unsubscribe": "One-Click"})
    finally:
        server.send_signal(signal.SIGINT)
        try:
            output, _ = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()  # never left running after the test
            server.communicate()
            raise
    return output


@pytest.mark.parametrize(
    "settings",
    [{}, PRODUCTION | {"PAPERBOY_LOG_JSON": "true"}],
    ids=["development-plain", "production-json"],
)
def test_no_token_in_a_url_reaches_the_web_servers_log(
    database: Database, tmp_path: Path, settings: dict[str, str]
) -> None:
    output = serve_and_log(database, tmp_path, settings)
    assert TOKEN not in output
    assert TOKEN[:12] not in output  # nor a piece of one
    assert output.count("token=[redacted]") == len(TOKENED_GETS) + len(TOKENED_POSTS) - 1
    assert output.count("%74oken=[redacted]") == 1
    assert "/for-you/feed.atom?token=[redacted]" in output
    assert "/subscriptions/preferences?from=mail&token=[redacted]&again=1" in output


def test_the_value_of_every_token_parameter_is_redacted_and_nothing_else() -> None:
    line = f'1.2.3.4 - "GET /unsubscribe?a=1&token={TOKEN}&b=2#x HTTP/1.1" 200'
    assert redact(line) == '1.2.3.4 - "GET /unsubscribe?a=1&token=[redacted]&b=2#x HTTP/1.1" 200'
    assert redact(f"/x?%74oken={TOKEN}") == "/x?%74oken=[redacted]"
    assert redact(f"/x?to%6Ben={TOKEN} and /y?token={TOKEN}") == (
        "/x?to%6Ben=[redacted] and /y?token=[redacted]"
    )
    untouched = f"/x?tokens={TOKEN}&my_token=1&token=&q=token%3D1 /token={TOKEN}"
    assert redact(untouched) == untouched


BASE64URL = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=1)
OTHER_PAIRS = st.lists(st.from_regex(r"[a-su-z][a-z]{0,5}=[a-z0-9]{0,5}", fullmatch=True))


@given(BASE64URL, OTHER_PAIRS, OTHER_PAIRS)
def test_a_token_anywhere_in_a_query_is_gone_and_the_rest_kept(
    token: str, before: list[str], after: list[str]
) -> None:
    query = "&".join([*before, f"token={token}", *after])
    assert redact(f"GET /path?{query} HTTP/1.1") == (
        f"GET /path?{'&'.join([*before, 'token=[redacted]', *after])} HTTP/1.1"
    )
    assert carries_token(query)
    assert not carries_token("&".join([*before, *after]))


def test_a_handler_with_the_filter_redacts_what_any_logger_sends_it() -> None:
    written = io.StringIO()
    handler = logging.StreamHandler(written)
    install_redaction(handler)
    install_redaction(handler)  # once is enough: installing again adds nothing
    assert sum(isinstance(f, RedactCredentials) for f in handler.filters) == 1
    logger = logging.getLogger("tests.redaction.child")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("fetched %s", httpx.URL(f"https://site/unsubscribe?token={TOKEN}"))
        logger.warning("asked for %(url)s", {"url": f"/for-you/feed.rss?token={TOKEN}"})
        try:
            raise ValueError(f"bad link /signin/confirm?token={TOKEN}")
        except ValueError:
            logger.exception("refused")
    finally:
        logger.removeHandler(handler)
    text = written.getvalue()
    assert TOKEN not in text
    assert "fetched https://site/unsubscribe?token=[redacted]\n" in text
    assert "asked for /for-you/feed.rss?token=[redacted]\n" in text
    assert "ValueError: bad link /signin/confirm?token=[redacted]\n" in text


def test_a_traceback_or_stack_another_handler_formatted_first_is_redacted_too() -> None:
    try:
        raise ValueError(f"bad link /signin/confirm?token={TOKEN}")
    except ValueError:
        record = logging.getLogger("tests.redaction").makeRecord(
            "tests.redaction", logging.ERROR, __file__, 1, "refused", (), sys.exc_info()
        )
    logging.Formatter().format(record)  # an unfiltered handler came first: exc_text is set
    record.stack_info = f"Stack (most recent call last):\n  fetch /x?token={TOKEN} now"
    assert TOKEN in (record.exc_text or "")

    RedactCredentials().filter(record)

    assert "bad link /signin/confirm?token=[redacted]" in (record.exc_text or "")
    assert record.stack_info == "Stack (most recent call last):\n  fetch /x?token=[redacted] now"
    assert TOKEN not in logging.Formatter().format(record)
