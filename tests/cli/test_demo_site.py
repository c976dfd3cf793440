"""The served demo mails: its local mail sink runs for as long as the site does, and every
link it mails points at the port the demo serves on."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from app.cli.demo.site import demo_app, mail_drop, public_url, served_at
from app.web.forms import CSRF_COOKIE
from tests.cli.mail_files import mailed_link
from tests.conftest import Database
from tests.servers import free_port, served

WAIT_SECONDS = 10.0  # a few seconds, with room for a loaded machine


def _csrf_pair(base_url: str, path: str) -> tuple[str, str]:
    """The form's hidden field and its cookie's nonce, as a browser would get them."""
    page = httpx.get(f"{base_url}{path}")
    field = re.search(r'name="csrf" value="([^"]+)"', page.text)
    nonce = re.search(rf"{CSRF_COOKIE}=([^;]+)", page.headers["set-cookie"])
    assert field is not None and nonce is not None
    return field.group(1), nonce.group(1)


def _post_form(base_url: str, path: str, fields: dict[str, str]) -> httpx.Response:
    field, nonce = _csrf_pair(base_url, path)
    return httpx.post(
        f"{base_url}{path}",
        data={**fields, "csrf": field},
        headers={"cookie": f"{CSRF_COOKIE}={nonce}"},
    )


def _port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        # Connections the sink closed linger in TIME_WAIT; only a listener makes the port busy.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_the_served_demo_mails_confirmation_and_sign_in_links_that_open_on_its_own_port(
    database: Database,
) -> None:
    port = free_port()
    settings = served_at(database.settings, "127.0.0.1", port)
    drop = mail_drop(settings)
    mail = drop.folder
    with served(demo_app(settings, drop), port) as base_url:
        assert not _port_is_free(drop.port)  # the sink listens while the site serves
        subscribed = _post_form(base_url, "/subscribe", {"email": "new@example.org"})
        assert subscribed.status_code == 200
        confirm = mailed_link(mail, "new@example.org", "/subscribe/confirm")
        assert confirm.startswith(f"http://127.0.0.1:{port}/")
        assert httpx.get(confirm).status_code == 200

        signing_in = _post_form(base_url, "/signin", {"email": "new@example.org"})
        assert signing_in.status_code == 200
        signin = mailed_link(mail, "new@example.org", "/signin/confirm")
        assert signin.startswith(f"http://127.0.0.1:{port}/")
        assert httpx.get(signin).status_code == 200
    assert _port_is_free(drop.port)  # and is gone once the site stops


def test_a_demo_served_on_every_address_links_to_this_machine() -> None:
    assert public_url("0.0.0.0", 8123) == "http://127.0.0.1:8123"
    assert public_url("::", 8123) == "http://127.0.0.1:8123"
    assert public_url("192.0.2.7", 9000) == "http://192.0.2.7:9000"
    assert public_url("::1", 9000) == "http://[::1]:9000"


SERVE_DEMO = (
    "import sys; from app.cli.demo.steps import serve; from app.core.config import get_settings;"
    " serve(get_settings(), '127.0.0.1', int(sys.argv[1]))"
)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_stopping_the_served_demo_stops_its_mail_sink(
    database: Database, stop: signal.Signals
) -> None:
    port, settings = free_port(), database.settings
    environment = {
        **os.environ,
        "PAPERBOY_DATABASE_URL": settings.resolved_database_url,
        "PAPERBOY_DATA_DIR": str(settings.data_dir),
    }
    command = [sys.executable, "-u", "-c", SERVE_DEMO, str(port)]
    with subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, text=True) as demo:
        printed = _lines_of(demo)
        sink = _wait_for_line(
            printed, r"mail sink: 127\.0\.0\.1:(\d+), each message a file in (\S+)/"
        )
        base_url = f"http://127.0.0.1:{port}"
        _wait_until_up(base_url)
        assert _post_form(base_url, "/signin", {"email": "new@example.org"}).status_code == 200
        assert mailed_link(Path(sink.group(2)), "new@example.org", "/signin/confirm").startswith(
            base_url
        )
        demo.send_signal(stop)
        demo.wait(timeout=WAIT_SECONDS)
    stopped = _wait_for_line(printed, r"mail sink stopped \((\d+) received while serving\)")
    # Ctrl-C ends the demo quietly; SIGTERM, once the site and its sink have stopped, is
    # raised again, so the demo ends as killed by it, as a shell or supervisor expects.
    assert demo.returncode == (0 if stop == signal.SIGINT else -stop)
    assert stopped.group(1) == "1"
    assert _port_is_free(int(sink.group(1)))
    assert _port_is_free(port)


def _wait_until_up(base_url: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{base_url}/readyz")
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError(f"the demo did not answer at {base_url}")


def _lines_of(process: subprocess.Popen[str]) -> list[str]:
    """The lines ``process`` prints, filled in by a thread as they come (read without blocking
    the test, so a line that never comes fails it rather than hangs it)."""
    lines: list[str] = []
    assert process.stdout is not None
    threading.Thread(target=lambda: lines.extend(process.stdout or ()), daemon=True).start()
    return lines


def _wait_for_line(lines: list[str], pattern: str) -> re.Match[str]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = next((m for line in list(lines) if (m := re.search(pattern, line))), None)
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"the demo printed no line matching {pattern!r}: {lines}")
