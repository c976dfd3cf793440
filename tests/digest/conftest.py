"""A real SMTP server (aiosmtpd) on a free port that records what arrives, and the test app."""

from __future__ import annotations

import asyncio
import email
import email.policy
import inspect
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.web.app import create_app
from tests.conftest import Database
from tests.servers import free_port

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


# An answer that closes the channel: a real server hangs up after it (RFC 5321, 3.8).
CLOSING = "421"


@dataclass
class RecordingHandler:
    messages: list[EmailMessage] = field(default_factory=list)
    raw: list[bytes] = field(default_factory=list)
    # RCPT TO address -> SMTP answer to give instead of accepting (a bouncing recipient).
    refuse: dict[str, str] = field(default_factory=dict)
    # RCPT TO address -> SMTP answer to its message's DATA instead of accepting it.
    refuse_data: dict[str, str] = field(default_factory=dict)
    # Addresses whose message the server hangs up on, in DATA, without an answer.
    drop_in_data: set[str] = field(default_factory=set)
    # The answer to every MAIL FROM instead of accepting it (a refused sender).
    refuse_sender: str | None = None
    # Called on each RCPT (the kill test uses it to stop the sender mid-run).
    on_rcpt: Any = None
    # Called with the recipients once a message is stored, before the server answers DATA.
    on_accepted: Any = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_MAIL(  # noqa: N802 (aiosmtpd's hook name)
        self, server: Any, session: Any, envelope: Any, address: str, options: Any
    ) -> str:
        if self.refuse_sender is not None:
            return _answered(server, self.refuse_sender)
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(  # noqa: N802 (aiosmtpd's hook name)
        self, server: Any, session: Any, envelope: Any, address: str, options: Any
    ) -> str:
        if self.on_rcpt is not None:
            answer = self.on_rcpt(address)
            if inspect.isawaitable(answer):
                await answer
        if address in self.refuse:
            return _answered(server, self.refuse[address])
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        recipients = list(envelope.rcpt_tos)
        if self.drop_in_data.intersection(recipients):
            server.transport.close()
            await asyncio.Event().wait()  # cancelled when the connection is gone
        for address in recipients:
            if address in self.refuse_data:
                return _answered(server, self.refuse_data[address])
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        with self.lock:
            self.messages.append(message)
            self.raw.append(envelope.content)
        if self.on_accepted is not None:
            await asyncio.to_thread(self.on_accepted, recipients)
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for m in self.messages if m["To"] == address]


def _answered(server: Any, answer: str) -> str:
    """``answer``, after which the server hangs up if it says it closes the channel."""
    if answer.startswith(CLOSING):
        asyncio.get_running_loop().call_soon(server.transport.close)
    return answer


@dataclass
class Smtp:
    handler: RecordingHandler
    port: int


@pytest.fixture
def smtp() -> Iterator[Smtp]:
    handler = RecordingHandler()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield Smtp(handler, port)
    finally:
        controller.stop()


@dataclass
class Clock:
    """A frozen ``app.core.clock.Clock`` that a test moves by setting ``now``."""

    now: datetime = NOW

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def cli_environment(settings: Settings) -> dict[str, str]:
    """The environment that gives a `paperboy` subprocess these settings."""
    names = ("database_url", "smtp_host", "smtp_port", "secret_key", "public_base_url", "mail_from")
    values = {f"PAPERBOY_{name.upper()}": str(getattr(settings, name)) for name in names}
    return {**os.environ, **values, "PAPERBOY_DATA_DIR": str(settings.data_dir)}


@pytest.fixture
def mail_settings(database: Database, smtp: Smtp) -> Settings:
    return database.settings.model_copy(
        update={
            "smtp_host": "127.0.0.1",
            "smtp_port": smtp.port,
            "secret_key": "test-secret-key-for-digest-tests",
            "public_base_url": "https://paperboy.test",
            "mail_from": "Paperboy <digest@paperboy.test>",
            "digest_retry_seconds": 0.01,
        }
    )


@pytest.fixture
def client(database: Database, mail_settings: Settings, clock: Clock) -> Iterator[TestClient]:
    """The whole web app on the test database, its pages seeing ``clock``'s time."""
    with TestClient(
        create_app(mail_settings, clock), base_url="https://paperboy.test"
    ) as test_client:
        yield test_client
