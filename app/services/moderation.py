"""Moderation as use cases: the operator names moderators (``paperboy moderators``), a
moderator reads the queue of pending claims and corrections and the hidden pages, decides each
with a reason (and hides or shows any person's page with one), and a reader reads the
decisions about them.

A decided correction that changes what holds for everyone splits its name again at once, as a
reader's correction does (:func:`app.services.claims.correct_person`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session, sessionmaker

from accounts import corrections, moderation, person_claims, reader
from accounts.addresses import parse_address
from accounts.moderation import PendingClaim, PendingComment, PendingCorrection
from accounts.person_claims import HiddenPage
from app.core.db import session_scope, unit_of_work
from app.core.refusals import NotFound
from app.services.people import split_names
from app.services.reports import Deployment

__all__ = ["HiddenPage", "PendingClaim", "PendingComment", "PendingCorrection"]


@dataclass(frozen=True)
class ModeratorRow:
    email: str
    added_at: datetime


@dataclass(frozen=True)
class Queue:
    """What waits for a moderator."""

    moderator: str
    claims: tuple[PendingClaim, ...]
    corrections: tuple[PendingCorrection, ...]
    hidden: tuple[HiddenPage, ...]
    comments: tuple[PendingComment, ...]


@dataclass(frozen=True)
class DecisionRow:
    """One decision about a reader, as their page shows it."""

    kind: str
    person_id: int | None
    arxiv_id: str | None
    comment_id: int | None
    decision: str
    reason: str
    decided_at: datetime


def add_moderator(sessions: sessionmaker[Session], email: str, now: datetime) -> bool:
    """Name the mailbox a moderator (an address that cannot be mailed is refused); False when
    it was one already."""
    key = parse_address(email).key
    with session_scope(sessions) as session:
        return moderation.add(session, key, now)


def remove_moderator(sessions: sessionmaker[Session], email: str) -> bool:
    with session_scope(sessions) as session:
        return moderation.remove(session, email)


def list_moderators(sessions: sessionmaker[Session]) -> list[ModeratorRow]:
    with session_scope(sessions) as session:
        return [ModeratorRow(row.email_key, row.added_at) for row in moderation.every(session)]


def queue(session: Session, email_key: str) -> Queue:
    """The queue, for a moderator only (:class:`moderation.NotModeratorError` otherwise)."""
    moderator = moderation.require_moderator(session, email_key)
    return Queue(
        moderator=moderator,
        claims=tuple(moderation.pending_claims(session)),
        corrections=tuple(moderation.pending_corrections(session)),
        hidden=tuple(person_claims.hidden_pages(session)),
        comments=tuple(moderation.pending_comments(session)),
    )


def decide_claim(
    site: Deployment, email_key: str, subscriber_id: int, person_id: int, decision: str, reason: str
) -> None:
    """Approve (verify) or refuse a reader's claim of a person, with a reason."""
    now = site.clock()

    def step(session: Session) -> None:
        verdict = _verdict(session, email_key, decision, reason)
        moderation.decide_claim(session, subscriber_id, person_id, verdict, now)

    try:
        unit_of_work(site.sessions, step)
    except LookupError as missing:
        raise NotFound(f"not pending here: {missing}") from missing


def decide_correction(
    site: Deployment, email_key: str, person_id: int, arxiv_id: str, decision: str, reason: str
) -> None:
    """Approve or refuse the readers' correction of a paper of a person, with a reason; the
    name is split again when what holds for everyone changed."""
    now = site.clock()

    def step(session: Session) -> str | None:
        verdict = _verdict(session, email_key, decision, reason)
        before = corrections.agreed(session, person_id, arxiv_id)
        key = moderation.decide_correction(session, person_id, arxiv_id, verdict, now)
        return key if before != corrections.agreed(session, person_id, arxiv_id) else None

    try:
        changed_name = unit_of_work(site.sessions, step)
    except LookupError as missing:
        raise NotFound(f"not pending here: {missing}") from missing
    if changed_name is not None:
        split_names(site.settings, site.sessions, [changed_name])


def decide_page(
    site: Deployment, email_key: str, person_id: int, decision: str, reason: str
) -> None:
    """Hide a person's page from everyone, or show it again, with a reason its verified
    claimant reads."""
    now = site.clock()

    def step(session: Session) -> None:
        choices = moderation.PAGE_DECISIONS
        verdict = _verdict(session, email_key, decision, reason, choices)
        person_claims.moderate_page(session, person_id, verdict, now)

    try:
        unit_of_work(site.sessions, step)
    except LookupError as missing:
        raise NotFound(f"no such person here: {missing}") from missing


def decisions_about(session: Session, email_key: str) -> list[DecisionRow]:
    """The decisions moderators made about the reader's claims and corrections."""
    found = reader.find(session, email_key)
    if found is None:
        return []
    return [
        DecisionRow(
            kind=row.kind,
            person_id=row.person_id,
            arxiv_id=row.arxiv_id,
            comment_id=row.comment_id,
            decision=row.decision,
            reason=row.reason,
            decided_at=row.decided_at,
        )
        for row in moderation.decisions_about(session, found.id)
    ]


def _verdict(
    session: Session,
    email_key: str,
    decision: str,
    reason: str,
    choices: tuple[str, ...] = moderation.DECISIONS,
) -> moderation.Verdict:
    moderator = moderation.require_moderator(session, email_key)
    return moderation.verdict(moderator, decision, reason, choices)
