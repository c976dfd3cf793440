"""The moderation queue, ``/moderation`` (moderators the operator named only; anyone else
is refused with 403), its decision buttons (and a person page's: hide it, or show it again),
and ``/moderation/decisions``: the decisions moderators made about the signed-in reader's
claims, corrections and page.

The buttons are plain form POSTs with a required reason, answered 303 back to the queue with
a line saying what was done; a decision the queue no longer holds answers 404, a claim of a
person verified since 409, a missing reason 400.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.services import accounts, discussion, moderation
from app.services.moderation import (
    DecisionRow,
    HiddenPage,
    PendingClaim,
    PendingComment,
    PendingCorrection,
)
from app.web.context import ContextDep, SessionDep, WebContext
from app.web.forms import MAX_ID, read_form, require_this_site
from app.web.routes.reader import PRIVATE, signed_in_reading, to_sign_in
from app.web.routes.voting import SESSION_COOKIE

router = APIRouter(include_in_schema=False)
Id = Annotated[int, Path(ge=1, le=MAX_ID)]
Done = Literal[
    "claim-approved",
    "claim-refused",
    "correction-approved",
    "correction-refused",
    "page-hidden",
    "page-shown",
    "comment-hidden",
    "comment-restored",
    "comment-stopped",
]
DONE_LINES: dict[str, str] = {
    "claim-approved": "Claim approved: it is verified now.",
    "claim-refused": "Claim refused: the reader no longer claims the person.",
    "correction-approved": "Correction approved: it holds for everyone now.",
    "correction-refused": "Correction refused: it stays the readers' own view.",
    "page-hidden": "Page hidden: only its verified claimant and the moderators see it now.",
    "page-shown": "Page shown again to everyone.",
    "comment-hidden": "Comment hidden: only its author sees it, with your reason.",
    "comment-restored": "Comment restored: everyone sees it.",
    "comment-stopped": "The comment's author can no longer post.",
}


@dataclass(frozen=True)
class ModerationPage:
    moderator: str
    claims: tuple[PendingClaim, ...]
    corrections: tuple[PendingCorrection, ...]
    hidden: tuple[HiddenPage, ...] = ()
    comments: tuple[PendingComment, ...] = ()
    done: str = ""
    problem: str = ""


@dataclass(frozen=True)
class DecisionsPage:
    reader: str | None
    decisions: list[DecisionRow] = field(default_factory=list)


@router.get("/moderation", response_class=HTMLResponse)
def queue(
    request: Request, context: ContextDep, session: SessionDep, done: Done | None = None
) -> Response:
    email_key = signed_in_reading(request, context, session)
    if email_key is None:
        return RedirectResponse("/signin", status_code=303)
    found = moderation.queue(session, email_key)
    page = ModerationPage(
        moderator=found.moderator,
        claims=found.claims,
        corrections=found.corrections,
        hidden=found.hidden,
        comments=found.comments,
        done=DONE_LINES.get(done or "", ""),
    )
    return context.respond(request, "pages/moderation.html", page, headers=PRIVATE)


@router.get("/moderation/decisions", response_class=HTMLResponse)
def decisions(request: Request, context: ContextDep, session: SessionDep) -> Response:
    email_key = signed_in_reading(request, context, session)
    page = DecisionsPage(email_key)
    if email_key is not None:
        page = DecisionsPage(email_key, moderation.decisions_about(session, email_key))
    return context.respond(request, "pages/decisions.html", page, headers=PRIVATE)


@router.post("/moderation/claims/{subscriber_id}/{person_id}")
async def decide_claim(
    request: Request, context: ContextDep, subscriber_id: Id, person_id: Id
) -> Response:
    decide = partial(
        moderation.decide_claim, context, subscriber_id=subscriber_id, person_id=person_id
    )
    return await _decide(request, context, "claim", decide)


@router.post("/moderation/corrections/{person_id}/{arxiv_id:path}")
async def decide_correction(
    request: Request, context: ContextDep, person_id: Id, arxiv_id: str
) -> Response:
    decide = partial(
        moderation.decide_correction, context, person_id=person_id, arxiv_id=arxiv_id[:40]
    )
    return await _decide(request, context, "correction", decide)


@router.post("/moderation/people/{person_id}")
async def decide_page(request: Request, context: ContextDep, person_id: Id) -> Response:
    """Hide a person's page (``decision=hidden``) or show it again (``shown``), with a reason."""
    decide = partial(moderation.decide_page, context, person_id=person_id)
    return await _decide(request, context, "page", decide)


@router.post("/moderation/comments/{comment_id}")
async def decide_comment(request: Request, context: ContextDep, comment_id: Id) -> Response:
    """Hide or restore a comment (``decision``: hidden, restored) or stop its author posting
    (``decision``: stopped), with a reason."""
    decide = partial(_moderate_comment, context, comment_id=comment_id)
    return await _decide(request, context, "comment", decide)


def _moderate_comment(
    context: WebContext, email_key: str, comment_id: int, decision: str, reason: str
) -> None:
    """The queue's one comment form sends stopping the author as a decision too; it is its
    own use case."""
    if decision == "stopped":
        discussion.stop_posting(context, email_key, comment_id=comment_id, reason=reason)
    else:
        discussion.decide_comment(
            context, email_key, comment_id=comment_id, decision=decision, reason=reason
        )


async def _decide(
    request: Request, context: WebContext, kind: str, decide: Callable[..., None]
) -> Response:
    """Read a decision button's form (``decision`` and its ``reason``), run ``decide`` with them
    as the signed-in moderator, then back to the queue saying what was done to the ``kind`` of
    thing (what it refuses answers its own status: a missing reason 400)."""
    form = await read_form(request)
    decision = form.get("decision")
    require_this_site(request, context.settings)
    cookie = request.cookies.get(SESSION_COOKIE, "")
    email_key = await run_in_threadpool(accounts.voter, context, cookie)
    if email_key is None:
        return to_sign_in(request)
    act = partial(decide, email_key, decision=decision, reason=form.get("reason"))
    await run_in_threadpool(act)
    return RedirectResponse(f"/moderation?done={kind}-{decision}", status_code=303)
