"""The demo's site: the web app at the demo's clock (:mod:`app.cli.demo.replay`),
so that its pages and ``/status`` take the sample's latest day as today, mailing a local mail
sink that runs for as long as the site does and writes ``DATA_DIR/mail/*.eml``: a local SMTP
server (aiosmtpd) that writes every message it receives to a ``.eml`` file. The links it mails
and feeds lead to where the demo serves (:func:`served_at`).

``uvicorn app.cli.demo.site:create_demo_app --factory`` serves a demo database
(``PAPERBOY_DATA_DIR``) as ``paperboy demo`` does (set ``PAPERBOY_PUBLIC_BASE_URL`` to the
address it serves on, so mailed links lead back to it); ``app.web.app:create_app`` serves it
at the real clock, where ``/status`` rightly calls the sample's data stale.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from fastapi import FastAPI
from sqlalchemy import func, select

from app.cli.common import job_session
from app.cli.demo.replay import demo_clock
from app.core.clock import utc_now
from app.core.config import Settings, get_settings
from app.core.models import Paper
from app.web.app import create_app

# Addresses a server listens on that no browser can open: links name the machine itself.
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})  # noqa: S104 (names them, binds none)


def public_url(host: str, port: int) -> str:
    """The base URL a browser on this machine opens the demo served on ``host:port`` at."""
    shown = "127.0.0.1" if host in WILDCARD_HOSTS else host
    return f"http://[{shown}]:{port}" if ":" in shown else f"http://{shown}:{port}"


def served_at(settings: Settings, host: str, port: int) -> Settings:
    """``settings`` whose mailed and fed links lead to the demo served on ``host:port``."""
    return settings.model_copy(update={"public_base_url": public_url(host, port)})


@dataclass
class FileSink:
    """Writes each message it receives to a file of ``folder``; ``written`` holds this sink's
    own files, in order (the folder keeps earlier runs' too)."""

    folder: Path
    written: list[Path] = field(default_factory=list)

    @property
    def received(self) -> int:
        return len(self.written)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 (aiosmtpd's hook name)
        recipient = envelope.rcpt_tos[0].replace("@", "_at_")
        # Numbered after what the folder holds, so a second demo run adds, never overwrites.
        number = len(list(self.folder.glob("*.eml"))) + 1
        path = self.folder / f"{number:03d}-{recipient}.eml"
        path.write_bytes(envelope.content)
        self.written.append(path)
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def mail_sink(folder: Path, port: int | None = None) -> Iterator[tuple[int, FileSink]]:
    """Run the sink on ``port`` (else a free one); yields the port and the sink (its count of
    messages)."""
    folder.mkdir(parents=True, exist_ok=True)
    # aiosmtpd logs each SMTP command at INFO: noise on the demo's console, one line a command.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    sink, port = FileSink(folder), port or free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port, sink
    finally:
        controller.stop()


Lifespan = Callable[[Any], AbstractAsyncContextManager[Any]]


@dataclass(frozen=True)
class MailDrop:
    """Where the demo's site mails: its local sink's port, and the folder the sink writes."""

    port: int
    folder: Path

    def describe(self) -> str:
        return f"mail sink: 127.0.0.1:{self.port}, each message a file in {self.folder.resolve()}/"


def mail_drop(settings: Settings) -> MailDrop:
    return MailDrop(free_port(), settings.data_dir / "mail")


def demo_app(settings: Settings, drop: MailDrop | None = None) -> FastAPI:
    """The app at the clock of the newest stored announcement day (the real one if none),
    mailing ``drop``'s sink (a new one on a free port if none), started and stopped with it."""
    drop = drop or mail_drop(settings)
    local = settings.model_copy(update={"smtp_host": "127.0.0.1", "smtp_port": drop.port})
    with job_session(local) as session:
        day = session.scalar(select(func.max(Paper.announced_on)))
    app = create_app(local, utc_now if day is None else demo_clock(day, local.data_dir))
    app.router.lifespan_context = _with_sink(app.router.lifespan_context, drop)
    return app


def _with_sink(lifespan: Lifespan, drop: MailDrop) -> Lifespan:
    @asynccontextmanager
    async def with_sink(app: Any) -> AsyncIterator[Any]:
        with mail_sink(drop.folder, drop.port) as (_, sink):
            async with lifespan(app) as state:
                yield state
        print(f"mail sink stopped ({sink.received} received while serving)")

    return with_sink


def create_demo_app() -> FastAPI:
    """The factory for uvicorn (``--factory``): settings from the environment."""
    return demo_app(get_settings())
