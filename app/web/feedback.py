"""The page a digest item's feedback link opens: which paper, and both choices as buttons.

A digest has one feedback link per paper (``digest.accounts.links.feedback_url``). Opening it
changes nothing (mail scanners open every link): the page names the paper and offers "more
like this" and "less like this", each a button that POSTs the choice with the link's token.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from app.core.db import session_scope
from app.core.models import Paper
from app.web.context import WebContext
from digest.accounts import subscriptions


@dataclass(frozen=True, slots=True)
class FeedbackPage:
    token: str
    csrf: str
    arxiv_id: str
    title: str | None  # None when the paper is no longer stored


def feedback_paper(context: WebContext, token: str) -> tuple[str, str | None]:
    """The paper a feedback link names and its title; :class:`TokenError` if refused."""
    with session_scope(context.sessions) as session:
        now = context.clock()
        arxiv_id = subscriptions.feedback_paper(session, context.settings, token, now)
        title = session.scalar(select(Paper.title).where(Paper.arxiv_id == arxiv_id))
        return arxiv_id, title
