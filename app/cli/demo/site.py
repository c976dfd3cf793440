"""The demo's site: the web app at the demo's clock (:mod:`app.cli.demo.clock`),
so that its pages and ``/status`` take the sample's latest day as today, mailing a local mail
sink that runs for as long as the site does and writes ``DATA_DIR/mail/*.eml``.

``uvicorn app.cli.demo.site:create_demo_app --factory`` serves a demo database
(``PAPERBOY_DATA_DIR``) as ``paperboy demo`` does (set ``PAPERBOY_PUBLIC_BASE_URL`` to the
address it serves on, so mailed links lead back to it); ``app.web.app:create_app`` serves it
at the real clock, where ``/status`` rightly calls the sample's data stale.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from sqlalchemy import func, select

from app.cli.common import job_session
from app.cli.demo.clock import demo_clock
from app.cli.demo.mailsink import free_port, mail_sink
from app.core.clock import utc_now
from app.core.config import Settings, get_settings
from app.core.models import Paper
from app.web.app import create_app

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
