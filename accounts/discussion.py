"""A reader's part in a paper's discussion: the name they show, their comments and replies,
edits, deletions and reports, and the limits on them (the rules; reads are in
:mod:`accounts.threads`).

A comment is refused with the reason when it is empty or longer than ``MAX_BODY``, when its
reader has no display name yet, or when a moderator stopped them posting. A reader posts at
most ``PER_MINUTE`` a minute and ``PER_DAY`` a day; a new reader (whose mailbox was proven
less than ``NEW_FOR`` ago, as :mod:`accounts.corrections` counts proof) ``NEW_PER_MINUTE`` and
``NEW_PER_DAY``. Storing a comment and counting the reader's are one step, so a burst cannot
all count the same room. A comment with more than ``MANY_LINKS`` links, or that repeats itself
or the reader's own recent words, waits for a moderator before anyone else sees it.

Each form carries a one-time value (``once``): the same form sent many times posts once.
An author edits within ``EDIT_WINDOW`` and deletes whenever; another reader's comment is
:class:`LookupError` (not found), as one that does not exist is.
"""

from __future__ import annotations

import zlib
from datetime import datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.core import comment_text
from app.core.models import (
    Comment,
    Commenter,
    CommentReport,
    CommentState,
    Paper,
    SignInKey,
    Subscriber,
)
from app.core.refusals import BadInput, Conflict, Limited, Refused

MAX_BODY = 10_000
MAX_NAME = 40
MAX_REASON = 2000
EDIT_WINDOW = timedelta(minutes=15)
PER_MINUTE, PER_DAY = 5, 100
NEW_PER_MINUTE, NEW_PER_DAY = 2, 10
NEW_FOR = timedelta(days=1)
MANY_LINKS = 5
# Text that compresses below this share of its length repeats itself.
REPEATED_BELOW = 0.12
REPEAT_CHECKED_FROM = 200


class CommentRefusedError(BadInput):
    """The comment cannot be kept as written; the message says why."""


class NameTakenError(Conflict):
    """Another reader shows this name."""


class PostingStoppedError(Refused):
    """A moderator stopped this reader from posting."""


def display_name(session: Session, subscriber: Subscriber) -> str | None:
    found = session.get(Commenter, subscriber.id)
    return found.display_name if found else None


def name_key(name: str) -> str:
    return name.casefold()


def set_name(session: Session, subscriber: Subscriber, typed: str) -> None:
    """Show ``typed`` on the reader's comments: unique whatever its case, at most
    ``MAX_NAME`` characters, and never an address (theirs or any other)."""
    name = " ".join(comment_text.cleaned(typed).split())
    if not name:
        raise CommentRefusedError("choose a display name")
    if len(name) > MAX_NAME:
        raise CommentRefusedError(f"a display name has at most {MAX_NAME} characters")
    if "@" in name or name_key(name) == name_key(subscriber.email_key.split("@")[0]):
        raise CommentRefusedError("a display name may not be an address: choose another")
    taken = session.scalar(select(Commenter).where(Commenter.name_key == name_key(name)))
    if taken is not None and taken.subscriber_id != subscriber.id:
        raise NameTakenError(f"another reader shows the name {name!r}: choose another")
    found = session.get(Commenter, subscriber.id)
    if found is None:
        found = Commenter(subscriber_id=subscriber.id, display_name=name, name_key="")
        session.add(found)
    found.display_name, found.name_key = name, name_key(name)
    session.flush()


def checked_body(typed: str) -> tuple[str, str]:
    """The cleaned Markdown and its HTML, or :class:`CommentRefusedError`."""
    if len(typed) > MAX_BODY * 2:
        raise CommentRefusedError(f"a comment has at most {MAX_BODY} characters")
    body = comment_text.cleaned(typed)
    if not body:
        raise CommentRefusedError("write something first")
    if len(body) > MAX_BODY:
        raise CommentRefusedError(f"a comment has at most {MAX_BODY} characters")
    return body, comment_text.rendered(body)


def post(session: Session, subscriber: Subscriber, asked: Comment, now: datetime) -> Comment:
    """Store ``asked`` (its paper, parent, body and once) as the reader's comment; the
    comment stored before from the same form, if any."""
    found = session.scalar(
        select(Comment).where(Comment.subscriber_id == subscriber.id, Comment.once == asked.once)
    )
    if found is not None:
        return found
    _may_post(session, subscriber)
    body, html = checked_body(asked.body)
    if session.get(Paper, asked.arxiv_id) is None:
        raise LookupError(f"paper {asked.arxiv_id}")
    parent = _parent(session, asked.arxiv_id, asked.parent_id)
    _lock(session, subscriber.id)
    comment = Comment(
        arxiv_id=asked.arxiv_id,
        subscriber_id=subscriber.id,
        parent_id=parent,
        body=body,
        html=html,
        state=_first_state(session, subscriber.id, body, now),
        once=asked.once,
        created_at=now,
    )
    session.add(comment)
    session.flush()
    _check_rate(session, subscriber, now)
    return comment


def _may_post(session: Session, subscriber: Subscriber) -> None:
    commenter = session.get(Commenter, subscriber.id)
    if commenter is None:
        raise CommentRefusedError("choose a display name before you post")
    if commenter.stopped_at is not None:
        raise PostingStoppedError(f"a moderator stopped you posting: {commenter.stopped_reason}")


def _parent(session: Session, arxiv_id: str, parent_id: int | None) -> int | None:
    """The top comment a reply answers (a reply to a reply answers its top comment)."""
    if parent_id is None:
        return None
    parent = session.get(Comment, parent_id)
    if parent is None or parent.arxiv_id != arxiv_id:
        raise LookupError(f"comment {parent_id} on paper {arxiv_id}")
    return parent.parent_id or parent.id


def _first_state(session: Session, subscriber_id: int, body: str, now: datetime) -> CommentState:
    """Waiting for a moderator when the comment looks like spam, else shown."""
    if comment_text.link_count(body) > MANY_LINKS:
        return CommentState.WAITING
    squeezed = len(zlib.compress(body.encode())) / max(len(body.encode()), 1)
    if len(body) >= REPEAT_CHECKED_FROM and squeezed < REPEATED_BELOW:
        return CommentState.WAITING
    said = select(Comment.id).where(
        Comment.subscriber_id == subscriber_id,
        Comment.body == body,
        Comment.created_at > now - timedelta(days=1),
    )
    return CommentState.WAITING if session.scalar(said) is not None else CommentState.SHOWN


def is_new(session: Session, subscriber: Subscriber, now: datetime) -> bool:
    """Whether the reader's mailbox was proven less than ``NEW_FOR`` ago (or never)."""
    signed_in = session.scalar(
        select(SignInKey.signed_in_at).where(SignInKey.email_key == subscriber.email_key)
    )
    proofs = [at for at in (subscriber.confirmed_at, signed_in) if at is not None]
    return not proofs or min(proofs) > now - NEW_FOR


def _lock(session: Session, subscriber_id: int) -> None:
    """PostgreSQL: one of a reader's comments at a time, until its transaction ends."""
    if session.get_bind().dialect.name == "postgresql":
        key = f"comments:{subscriber_id}"
        session.execute(select(func.pg_advisory_xact_lock(func.hashtext(key))))


def _check_rate(session: Session, subscriber: Subscriber, now: datetime) -> None:
    """Refuse the comment just written when it is over a limit (its caller's transaction
    rolls it back)."""
    new = is_new(session, subscriber, now)
    limits = (
        (timedelta(minutes=1), NEW_PER_MINUTE if new else PER_MINUTE, "a minute"),
        (timedelta(days=1), NEW_PER_DAY if new else PER_DAY, "a day"),
    )
    for span, most, said in limits:
        made = session.scalar(
            select(func.count())
            .select_from(Comment)
            .where(Comment.subscriber_id == subscriber.id, Comment.created_at > now - span)
        )
        if (made or 0) > most:
            retry = int(span.total_seconds())
            raise Limited(f"at most {most} comments {said}; try again later", retry)


def own(session: Session, subscriber: Subscriber, comment_id: int) -> Comment:
    """The reader's own comment, not deleted; anyone else's is :class:`LookupError`."""
    found = session.get(Comment, comment_id)
    if found is None or found.subscriber_id != subscriber.id:
        raise LookupError(f"comment {comment_id} of yours")
    if found.state is CommentState.DELETED:
        raise LookupError(f"comment {comment_id} (deleted)")
    return found


def edit(
    session: Session, subscriber: Subscriber, comment_id: int, typed: str, now: datetime
) -> Comment:
    """Change the reader's comment, within ``EDIT_WINDOW`` of posting it."""
    found = own(session, subscriber, comment_id)
    if now - found.created_at > EDIT_WINDOW:
        minutes = int(EDIT_WINDOW.total_seconds() // 60)
        raise CommentRefusedError(f"a comment can be edited for {minutes} minutes after posting")
    found.body, found.html = checked_body(typed)
    found.edited_at = now
    return found


def delete(session: Session, subscriber: Subscriber, comment_id: int) -> Comment:
    """Delete the reader's comment: its text goes, its place (and replies) stays."""
    found = own(session, subscriber, comment_id)
    found.state, found.body, found.html = CommentState.DELETED, "", ""
    return found


def report(
    session: Session, subscriber: Subscriber, comment_id: int, typed: str, now: datetime
) -> Comment:
    """The reader's report of a comment someone else can see, with a reason (once)."""
    found = session.get(Comment, comment_id)
    if found is None or found.state is not CommentState.SHOWN:
        raise LookupError(f"comment {comment_id}")
    reason = comment_text.cleaned(typed)
    if not reason or len(reason) > MAX_REASON:
        raise CommentRefusedError(f"say why, in at most {MAX_REASON} characters")
    held = select(CommentReport).where(
        CommentReport.comment_id == comment_id, CommentReport.subscriber_id == subscriber.id
    )
    if session.scalar(held) is None:
        session.add(
            CommentReport(
                comment_id=comment_id, subscriber_id=subscriber.id, reason=reason, reported_at=now
            )
        )
    return found


def forget_author(session: Session, subscriber_id: int) -> None:
    """Before a reader's account goes: their comments become a deleted reader's, text gone."""
    session.execute(
        update(Comment)
        .where(Comment.subscriber_id == subscriber_id)
        .values(subscriber_id=None, body="", html="", state=CommentState.DELETED)
    )
