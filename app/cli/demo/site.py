"""The demo's site: the web app at the demo's clock (:func:`app.cli.demo.replay.demo_clock`),
so that its pages and ``/status`` take the sample's latest day as today.

``uvicorn app.cli.demo.site:create_demo_app --factory`` serves a demo database
(``PAPERBOY_DATA_DIR``) as ``paperboy demo`` does; ``app.web.app:create_app`` serves it at the
real clock, where ``/status`` rightly calls the sample's data stale.
"""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import func, select

from app.cli.common import job_session
from app.cli.demo.replay import demo_clock
from app.core.clock import utc_now
from app.core.config import Settings, get_settings
from app.core.models import Paper
from app.web.app import create_app


def demo_app(settings: Settings) -> FastAPI:
    """The app at the clock of the newest stored announcement day (the real one if none)."""
    with job_session(settings) as session:
        day = session.scalar(select(func.max(Paper.announced_on)))
    return create_app(settings, utc_now if day is None else demo_clock(day))


def create_demo_app() -> FastAPI:
    """The factory for uvicorn (``--factory``): settings from the environment."""
    return demo_app(get_settings())
