"""What every request handler shares: settings, sessions, templates, search, limiter, memo.

Built once by ``create_app`` and kept on ``app.state.web``; handlers reach it through
:func:`get_context` and the request's session through :func:`get_session`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.templating import Jinja2Templates
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.models import Edition
from app.web import queries
from app.web.limits import RateLimiter
from app.web.memo import Memo
from app.web.search import SearchService

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
TEMPLATES_DIR = PROJECT_ROOT / "templates"
STATIC_DIR = PROJECT_ROOT / "static"


@dataclass(frozen=True)
class WebContext:
    settings: Settings
    sessions: sessionmaker[Session]
    templates: Jinja2Templates
    search: SearchService
    limiter: RateLimiter
    memo: Memo

    def edition(self, session: Session, period: str, key: date | None) -> Edition | None:
        """The edition to serve for (period, key), looked up at most once per memo lifetime.

        A hit costs no database query at all; a newly published edition is served once the
        kept lookup expires (``PAPERBOY_WEB_CACHE_SECONDS``).
        """
        return self.memo.get(
            ("edition", period, key), lambda: queries.current_edition(session, period, key)
        )

    def render(self, name: str, page: dict[str, object]) -> bytes:
        """A page rendered to bytes, for responses kept in the memo."""
        return self.templates.get_template(name).render(page).encode()


def make_templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
    # Autoescaping is on for .html; say so for every template, whatever its name.
    templates.env.autoescape = True
    return templates


async def get_context(request: Request) -> WebContext:
    # async: a plain attribute read, not worth a trip to the thread pool
    context: WebContext = request.app.state.web
    return context


async def get_session(
    context: Annotated[WebContext, Depends(get_context)],
) -> AsyncIterator[Session]:
    """One unit of work per request, committed at the end (the edge).

    Opening a session does no I/O, so it happens on the event loop; the commit runs in the
    thread pool, and only if the request touched the database (a kept page does not).
    """
    session = context.sessions()
    try:
        yield session
    except BaseException:
        await run_in_threadpool(_end, session, False)
        raise
    if session.in_transaction():
        await run_in_threadpool(_end, session, True)
    else:
        session.close()


def _end(session: Session, commit: bool) -> None:
    try:
        if commit:
            session.commit()
        else:
            session.rollback()
    finally:
        session.close()


ContextDep = Annotated[WebContext, Depends(get_context)]
SessionDep = Annotated[Session, Depends(get_session)]
