"""Moderators and what they decide: the readers the operator named (by mailbox), the queue of
claims, corrections and comments waiting for one, and the audit log of every decision.

A moderator approves or refuses, always with a reason. Approving a claim verifies it (one
verified claimant a person); refusing it takes the reader's claim away. Approving a
correction makes it hold for everyone; refusing it keeps it the reader's own view
(:func:`accounts.corrections.settled`). A person's page is hidden or shown again
(:func:`accounts.person_claims.moderate_page`). Each decision is a row of
``moderation_decisions`` for each reader it concerns, who may read it (a page with no
verified claimant concerns nobody: its row names no reader, and is kept all the same).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from accounts import corrections, reader
from app.core.models import (
    Comment,
    Commenter,
    CommentReport,
    CommentState,
    ModerationDecision,
    Moderator,
    Person,
    PersonCorrection,
    Subscriber,
)
from app.core.models.subscriptions import mailbox_key
from app.core.refusals import BadInput, Conflict, Refused

APPROVED, REFUSED = corrections.APPROVED, corrections.REFUSED
DECISIONS = (APPROVED, REFUSED)
# What a moderator decides of a person's page (the decision's kind is "hide").
HIDDEN, SHOWN = "hidden", "shown"
PAGE_DECISIONS = (HIDDEN, SHOWN)
MAX_REASON = 2000
RECENTLY_HIDDEN = 20  # hidden comments the queue keeps listing, so that one can be restored


class NotModeratorError(Refused):
    """Only a moderator the operator named may see the queue and decide."""


class AlreadyVerifiedError(Conflict):
    """The person has a verified claimant already."""


@dataclass(frozen=True)
class PendingClaim:
    subscriber_id: int
    email: str
    person_id: int
    author_key: str


@dataclass(frozen=True)
class PendingCorrection:
    """A paper some readers say is not by a person, not yet holding for everyone."""

    person_id: int
    author_key: str
    arxiv_id: str
    readers: int


def is_moderator(session: Session, email_key: str) -> bool:
    """Whether the reader's mailbox is one the operator named (any address of it)."""
    return session.get(Moderator, mailbox_key(email_key)) is not None


def require_moderator(session: Session, email_key: str) -> str:
    """The moderator's mailbox key, or :class:`NotModeratorError`."""
    if not is_moderator(session, email_key):
        raise NotModeratorError("only a moderator may see the moderation queue")
    return mailbox_key(email_key)


def add(session: Session, email_key: str, now: datetime) -> bool:
    """Name a moderator; False when they were one already."""
    if is_moderator(session, email_key):
        return False
    session.add(Moderator(email_key=mailbox_key(email_key), added_at=now))
    session.flush()
    return True


def remove(session: Session, email_key: str) -> bool:
    """Take a moderator's role back; False when they were not one."""
    result = session.execute(delete(Moderator).where(Moderator.email_key == mailbox_key(email_key)))
    return bool(result.rowcount)  # type: ignore[attr-defined]


def every(session: Session) -> list[Moderator]:
    return list(session.scalars(select(Moderator).order_by(Moderator.email_key)))


def pending_claims(session: Session) -> list[PendingClaim]:
    rows = session.execute(
        select(Subscriber.id, Subscriber.email, Subscriber.claimed_person, Person.author_key)
        .join(Person, Person.id == Subscriber.claimed_person)
        .where(Subscriber.claim_verified_at.is_(None))
        .order_by(Subscriber.claimed_person, Subscriber.id)
    )
    return [
        PendingClaim(
            subscriber_id=row.id, email=row.email, person_id=person, author_key=row.author_key
        )
        for row in rows
        if (person := row.claimed_person) is not None
    ]


def pending_corrections(session: Session) -> list[PendingCorrection]:
    """Standing corrections no moderator decided that do not hold for everyone yet."""
    undecided = PersonCorrection.moderation.is_(None)
    keys = dict(
        session.execute(
            select(Person.id, Person.author_key)
            .join(PersonCorrection, PersonCorrection.person_id == Person.id)
            .where(undecided)
        ).all()
    )
    found = [
        PendingCorrection(
            person_id=person,
            author_key=keys[person],
            arxiv_id=arxiv_id,
            readers=len({one.mailbox for one in said}),
        )
        for (person, arxiv_id), said in corrections.standing(session, undecided).items()
        if not corrections.settled(said) and person in keys
    ]
    return sorted(found, key=lambda one: (one.person_id, one.arxiv_id))


def decide_claim(
    session: Session, subscriber_id: int, person_id: int, verdict: Verdict, now: datetime
) -> None:
    """Approve (verify) or refuse (take away) a reader's unverified claim of the person."""
    found = session.get(Subscriber, subscriber_id)
    if found is None or found.claimed_person != person_id or found.claim_verified_at is not None:
        raise LookupError(f"unverified claim of person {person_id} by reader {subscriber_id}")
    if verdict.decision == APPROVED:
        verified = select(Subscriber.id).where(
            Subscriber.claimed_person == person_id, Subscriber.claim_verified_at.is_not(None)
        )
        if session.scalar(verified) is not None:
            raise AlreadyVerifiedError(f"person {person_id} has a verified claimant already")
        found.claim_verified_at = now
        found.claim_verified_by = f"moderator:{verdict.moderator}"
    else:
        reader.unclaim(session, found)
    log(session, "claim", [subscriber_id], person_id, None, verdict, now)
    session.flush()


def decide_correction(
    session: Session, person_id: int, arxiv_id: str, verdict: Verdict, now: datetime
) -> str:
    """Approve or refuse every standing correction of the paper of the person; the name to
    split again."""
    rows = list(corrections.moderate(session, person_id, arxiv_id, verdict.decision))
    readers = sorted({row.subscriber_id for row in rows})
    log(session, "correction", readers, person_id, arxiv_id, verdict, now)
    session.flush()
    return rows[0].author_key


@dataclass(frozen=True)
class Verdict:
    """A moderator's decision and its reason, checked (:func:`verdict`)."""

    moderator: str
    decision: str
    reason: str


def verdict(
    moderator: str, decision: str, reason: str, choices: tuple[str, ...] = DECISIONS
) -> Verdict:
    """The decision as asked (one of ``choices``), or :class:`BadInput` saying what is
    missing."""
    if decision not in choices:
        raise BadInput(f"decide one of: {', '.join(choices)}")
    reason = reason.strip()
    if not reason:
        raise BadInput("give a reason: the reader it concerns reads it")
    if len(reason) > MAX_REASON:
        raise BadInput(f"a reason has at most {MAX_REASON} characters")
    return Verdict(moderator, decision, reason)


def decisions_about(session: Session, subscriber_id: int) -> list[ModerationDecision]:
    """The decisions about a reader, newest first."""
    return list(
        session.scalars(
            select(ModerationDecision)
            .where(ModerationDecision.subscriber_id == subscriber_id)
            .order_by(ModerationDecision.decided_at.desc(), ModerationDecision.id.desc())
        )
    )


def log(
    session: Session,
    kind: str,
    readers: Sequence[int | None],
    person_id: int,
    arxiv_id: str | None,
    verdict: Verdict,
    now: datetime,
) -> None:
    """Keep the decision in the audit log: a row for each reader it concerns (None: nobody)."""
    session.add_all(
        ModerationDecision(
            kind=kind,
            subscriber_id=subscriber,
            person_id=person_id,
            arxiv_id=arxiv_id,
            decision=verdict.decision,
            reason=verdict.reason,
            moderator=verdict.moderator,
            decided_at=now,
        )
        for subscriber in readers
    )


@dataclass(frozen=True)
class PendingComment:
    """A comment waiting for a moderator, or one readers reported, with their reasons."""

    comment_id: int
    arxiv_id: str
    subscriber_id: int | None
    name: str
    body: str
    state: str
    reasons: tuple[str, ...]


HIDDEN, RESTORED, STOPPED = "hidden", "restored", "stopped"


def pending_comments(session: Session) -> list[PendingComment]:
    """Waiting comments, reported ones no moderator decided about since, and the newest
    ``RECENTLY_HIDDEN`` hidden ones (for a moderator to restore), oldest first."""
    reported = select(CommentReport.comment_id).where(CommentReport.settled_at.is_(None))
    hidden = (
        select(Comment.id)
        .where(Comment.state == CommentState.HIDDEN)
        .order_by(Comment.id.desc())
        .limit(RECENTLY_HIDDEN)
    )
    rows = session.execute(
        select(Comment, Commenter.display_name)
        .outerjoin(Commenter, Commenter.subscriber_id == Comment.subscriber_id)
        .where(
            (Comment.state == CommentState.WAITING)
            | ((Comment.state == CommentState.SHOWN) & Comment.id.in_(reported))
            | Comment.id.in_(hidden.scalar_subquery())
        )
        .order_by(Comment.id)
    ).all()
    reasons: dict[int, list[str]] = {}
    for comment_id, reason in session.execute(
        select(CommentReport.comment_id, CommentReport.reason)
        .where(CommentReport.settled_at.is_(None))
        .order_by(CommentReport.id)
    ):
        reasons.setdefault(comment_id, []).append(reason)
    return [
        PendingComment(
            comment_id=row.Comment.id,
            arxiv_id=row.Comment.arxiv_id,
            subscriber_id=row.Comment.subscriber_id,
            name=row.display_name or "deleted reader",
            body=row.Comment.body,
            state=row.Comment.state.value,
            reasons=tuple(reasons.get(row.Comment.id, ())),
        )
        for row in rows
    ]


def decide_comment(session: Session, comment_id: int, verdict: Verdict, now: datetime) -> None:
    """Hide or restore (show) a comment; its open reports are settled; its author is told."""
    found = session.get(Comment, comment_id)
    if found is None or found.state is CommentState.DELETED:
        raise LookupError(f"comment {comment_id}")
    found.state = CommentState.HIDDEN if verdict.decision == HIDDEN else CommentState.SHOWN
    session.execute(
        update(CommentReport)
        .where(CommentReport.comment_id == comment_id, CommentReport.settled_at.is_(None))
        .values(settled_at=now)
    )
    _log_comment(session, found, "comment", verdict, now)


def stop_posting(session: Session, comment_id: int, verdict: Verdict, now: datetime) -> None:
    """Stop the author of a comment from posting (their comments stay as they are)."""
    found = session.get(Comment, comment_id)
    commenter = (
        session.get(Commenter, found.subscriber_id) if found and found.subscriber_id else None
    )
    if found is None or commenter is None:
        raise LookupError(f"author of comment {comment_id}")
    commenter.stopped_at, commenter.stopped_reason = now, verdict.reason
    _log_comment(session, found, "posting", verdict, now)


def _log_comment(
    session: Session, comment: Comment, kind: str, verdict: Verdict, now: datetime
) -> None:
    session.add(
        ModerationDecision(
            kind=kind,
            subscriber_id=comment.subscriber_id,
            person_id=None,
            arxiv_id=comment.arxiv_id,
            comment_id=comment.id,
            decision=verdict.decision,
            reason=verdict.reason,
            moderator=verdict.moderator,
            decided_at=now,
        )
    )
    session.flush()
