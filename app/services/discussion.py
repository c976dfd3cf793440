"""A paper's discussion as use cases: a reader's display name, comments and replies, edits,
deletions and reports (each one unit of work, :func:`app.services.readers.as_reader`); the
thread, counts and recent comments pages and feeds read; and a moderator's hiding,
restoring and stopping a reader from posting (:mod:`accounts.discussion` has the rules).

What a rule refuses keeps its meaning (:mod:`app.core.refusals`); a comment that is not the
reader's, or not there, is :class:`NotFound`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from accounts import discussion, moderation, reader, threads
from accounts.discussion import EDIT_WINDOW, MAX_BODY, MAX_NAME
from accounts.moderation import HIDDEN, RESTORED, STOPPED, PendingComment
from accounts.threads import ShownComment, Thread
from app.core.db import unit_of_work
from app.core.models import Comment, Subscriber
from app.core.refusals import NotFound
from app.services.readers import as_reader
from app.services.reports import Deployment

__all__ = [
    "EDIT_WINDOW",
    "MAX_BODY",
    "MAX_NAME",
    "PendingComment",
    "ShownComment",
    "Thread",
]


@dataclass(frozen=True)
class Posted:
    """A comment as stored: its id, paper and whether it waits for a moderator."""

    id: int
    arxiv_id: str
    waiting: bool


def _posted(comment: Comment) -> Posted:
    return Posted(comment.id, comment.arxiv_id, comment.state == "waiting")


def set_name(site: Deployment, email_key: str, name: str) -> None:
    as_reader(
        site, email_key, lambda session, found, now: discussion.set_name(session, found, name)
    )


@dataclass(frozen=True)
class Draft:
    """What a comment form sends."""

    arxiv_id: str
    body: str
    once: str
    parent_id: int | None = None
    name: str = ""  # a display name, chosen with a first comment


def post_comment(site: Deployment, email_key: str, draft: Draft) -> Posted:
    """Post the reader's comment (choosing their display name first when the form has one)."""

    def step(session: Session, found: Subscriber, now: datetime) -> Posted:
        if draft.name.strip() and discussion.display_name(session, found) is None:
            discussion.set_name(session, found, draft.name)
        asked = Comment(
            arxiv_id=draft.arxiv_id, parent_id=draft.parent_id, body=draft.body, once=draft.once
        )
        return _posted(discussion.post(session, found, asked, now))

    return as_reader(site, email_key, step)


def edit_comment(site: Deployment, email_key: str, comment_id: int, body: str) -> Posted:
    return as_reader(
        site,
        email_key,
        lambda session, found, now: _posted(discussion.edit(session, found, comment_id, body, now)),
    )


def delete_comment(site: Deployment, email_key: str, comment_id: int) -> Posted:
    return as_reader(
        site,
        email_key,
        lambda session, found, now: _posted(discussion.delete(session, found, comment_id)),
    )


def report_comment(site: Deployment, email_key: str, comment_id: int, reason: str) -> Posted:
    """Report the comment to the moderators; the comment reported."""
    return as_reader(
        site,
        email_key,
        lambda session, found, now: _posted(
            discussion.report(session, found, comment_id, reason, now)
        ),
    )


@dataclass(frozen=True)
class Viewer:
    """The signed-in reader reading a thread: their row's id and display name, if any."""

    subscriber_id: int | None
    name: str | None


def viewer(session: Session, email_key: str | None) -> Viewer:
    found = reader.find(session, email_key) if email_key else None
    if found is None:
        return Viewer(None, None)
    return Viewer(found.id, discussion.display_name(session, found))


def thread_of(session: Session, arxiv_id: str, subscriber_id: int | None, page: int) -> Thread:
    return threads.thread(session, arxiv_id, subscriber_id, page)


def comment_counts(session: Session, arxiv_ids: Sequence[str]) -> dict[str, int]:
    return threads.counts(session, arxiv_ids)


def recent_comments(session: Session, arxiv_id: str | None, limit: int) -> list[ShownComment]:
    return threads.recent(session, arxiv_id, limit)


def one_comment(session: Session, comment_id: int, subscriber_id: int | None) -> ShownComment:
    found = threads.one(session, comment_id, subscriber_id)
    if found is None:
        raise NotFound(f"comment {comment_id} is not shown here")
    return found


def pending_comments(session: Session, email_key: str) -> list[PendingComment]:
    moderation.require_moderator(session, email_key)
    return moderation.pending_comments(session)


def decide_comment(
    site: Deployment, email_key: str, comment_id: int, decision: str, reason: str
) -> None:
    """Hide or restore a comment, with a reason its author reads."""
    _moderate(site, email_key, comment_id, (decision, reason, (HIDDEN, RESTORED)))


def stop_posting(site: Deployment, email_key: str, comment_id: int, reason: str) -> None:
    """Stop the author of a comment from posting, with a reason they read."""
    _moderate(site, email_key, comment_id, (STOPPED, reason, (STOPPED,)))


def _moderate(
    site: Deployment, email_key: str, comment_id: int, asked: tuple[str, str, tuple[str, ...]]
) -> None:
    decision, reason, choices = asked
    now = site.clock()

    def step(session: Session) -> None:
        moderator = moderation.require_moderator(session, email_key)
        verdict = moderation.verdict(moderator, decision, reason, choices)
        if decision == STOPPED:
            moderation.stop_posting(session, comment_id, verdict, now)
        else:
            moderation.decide_comment(session, comment_id, verdict, now)

    try:
        unit_of_work(site.sessions, step)
    except LookupError as missing:
        raise NotFound(f"not here: {missing}") from missing


def comment_as_posted(site: Deployment, comment_id: int, email_key: str) -> ShownComment:
    """A comment just posted, as its author sees it (a script shows it without reloading)."""
    with site.sessions() as session:
        return one_comment(session, comment_id, viewer(session, email_key).subscriber_id)
