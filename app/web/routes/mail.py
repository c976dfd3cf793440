"""``/mail/{ticket}``: where a confirmation or sign-in mail stands, for the reader who asked.

The subscribe and sign-in answers link it. The ticket is drawn at random when the mail is
queued, so the page names no address and says nothing of whether it was subscribed; it says
whether the mail went, when it is tried again and why not, or the server's words when it was
refused for good, with the form to ask again. No one but the asker holds the link, and no cache
may keep the page (its state changes as the mail is tried).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.services.mail_outbox import mail_state
from app.web import answers
from app.web.account_views import mail_status_page
from app.web.context import ContextDep, SessionDep

router = APIRouter(include_in_schema=False)


@router.get("/mail/{ticket}")
def mail_status(
    request: Request, ticket: str, context: ContextDep, session: SessionDep
) -> HTMLResponse:
    view = mail_status_page(mail_state(session, ticket))
    response = answers.page(request, context, "mail_status", view)
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
