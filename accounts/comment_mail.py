"""Mail about discussions: which new comments each reader is told of, in which mail, and
their two switches (the rules; the mail is built in :mod:`digest.mail.comment_notices`).

A reader is told of a reply to their comment (a reply answers a top comment, so its author),
unless they turned reply mail off; a verified author (their claimed person is one of the
paper's people) of every new comment on their papers posted since they turned that mail on.
Only a comment everyone sees counts (never one waiting for a moderator, hidden or deleted),
never the reader's own, never one more than ``LOOK_BACK`` old, and only for a reader whose
mailbox was proven (a confirmed subscription or a sign-in).

A reader gets at most one such mail every ``MAIL_EVERY``: of one kind, so its unsubscribe
link turns off exactly what it is about. A comment that is both a reply to them and on their
paper is a reply. When both kinds wait, the kind whose oldest comment waited longest goes
first; the other waits for the next mail. A mail lists at most ``MOST_LISTED`` comments (the
oldest); each listed comment is recorded with the mail (:class:`CommentNotice`) in the same
transaction, so it is never mailed to that reader again.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, delete, exists, func, or_, select
from sqlalchemy.orm import Session, aliased

from app.core.models import (
    Comment,
    Commenter,
    CommentMail,
    CommentNotice,
    CommentState,
    Paper,
    PaperPerson,
    SignInKey,
    Subscriber,
)

MAIL_EVERY = timedelta(hours=1)
LOOK_BACK = timedelta(days=2)
MOST_LISTED = 20
EXCERPT_LIMIT = 200
DELETED_READER = "deleted reader"
# Where a block or line of the HTML ends, words part; other tags join what they wrap.
_BREAK = re.compile(r"<(?:br|/p|/li|/h\d|/blockquote|/pre|/td|/th)\b[^>]*>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True, slots=True)
class Notice:
    """One comment a reader is to be told of, as their mail lists it (plain text)."""

    reader_id: int
    kind: CommentMail
    comment_id: int
    arxiv_id: str
    title: str
    commenter: str
    excerpt: str


@dataclass(frozen=True, slots=True)
class Batch:
    """The comments one mail tells a reader of, all of one kind, oldest first."""

    reader_id: int
    kind: CommentMail
    notices: tuple[Notice, ...]


def excerpt(rendered: str, limit: int = EXCERPT_LIMIT) -> str:
    """The text a comment's sanitized HTML shows, on one line, cut at a word beyond ``limit``."""
    text = " ".join(html.unescape(_TAG.sub("", _BREAK.sub(" ", rendered))).split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] or text[:limit]
    return f"{cut.rstrip(',;:.')}…"


def _proven() -> ColumnElement[bool]:
    signed_in = exists().where(
        SignInKey.email_key == Subscriber.email_key, SignInKey.signed_in_at.is_not(None)
    )
    return or_(Subscriber.confirmed_at.is_not(None), signed_in)


def _not_told(now: datetime) -> ColumnElement[bool]:
    told = exists().where(
        CommentNotice.subscriber_id == Subscriber.id, CommentNotice.comment_id == Comment.id
    )
    return and_(
        Comment.state == CommentState.SHOWN,
        Comment.created_at >= now - LOOK_BACK,
        Comment.created_at <= now,
        or_(Comment.subscriber_id.is_(None), Comment.subscriber_id != Subscriber.id),
        _proven(),
        ~told,
    )


def _reply_rows(session: Session, now: datetime) -> Sequence[tuple[int, int]]:
    parent = aliased(Comment)
    query = (
        select(Subscriber.id, Comment.id)
        .join(parent, parent.id == Comment.parent_id)
        .join(Subscriber, Subscriber.id == parent.subscriber_id)
        .where(parent.state != CommentState.DELETED, Subscriber.reply_mail, _not_told(now))
    )
    return [(reader, comment) for reader, comment in session.execute(query)]


def _paper_rows(session: Session, now: datetime) -> Sequence[tuple[int, int]]:
    query = (
        select(Subscriber.id, Comment.id)
        .join(PaperPerson, PaperPerson.arxiv_id == Comment.arxiv_id)
        .join(Subscriber, Subscriber.claimed_person == PaperPerson.person_id)
        .where(
            Subscriber.claim_verified_at.is_not(None),
            Subscriber.paper_comment_mail_since.is_not(None),
            Comment.created_at >= Subscriber.paper_comment_mail_since,
            _not_told(now),
        )
        .distinct()
    )
    return [(reader, comment) for reader, comment in session.execute(query)]


def pending(session: Session, now: datetime) -> list[Notice]:
    """Every comment some reader is still to be told of, by ``now`` (a reply once only)."""
    kinds: dict[tuple[int, int], CommentMail] = {}
    for pair in _paper_rows(session, now):
        kinds[pair] = CommentMail.PAPERS
    for pair in _reply_rows(session, now):
        kinds[pair] = CommentMail.REPLIES
    details = _details(session, {comment for _, comment in kinds})
    return [
        Notice(reader, kind, comment, *details[comment])
        for (reader, comment), kind in sorted(kinds.items())
    ]


def _details(session: Session, comment_ids: Iterable[int]) -> dict[int, tuple[str, str, str, str]]:
    """Each comment's paper, its title, its commenter's shown name and its excerpt."""
    rows = session.execute(
        select(Comment.id, Comment.arxiv_id, Paper.title, Commenter.display_name, Comment.html)
        .join(Paper, Paper.arxiv_id == Comment.arxiv_id)
        .outerjoin(Commenter, Commenter.subscriber_id == Comment.subscriber_id)
        .where(Comment.id.in_(list(comment_ids)))
    )
    return {
        row.id: (row.arxiv_id, row.title, row.display_name or DELETED_READER, excerpt(row.html))
        for row in rows
    }


def last_mailed(session: Session, reader_ids: Iterable[int]) -> dict[int, datetime]:
    """When each reader was last mailed about comments (those never mailed are left out)."""
    rows = session.execute(
        select(CommentNotice.subscriber_id, func.max(CommentNotice.mailed_at))
        .where(CommentNotice.subscriber_id.in_(list(reader_ids)))
        .group_by(CommentNotice.subscriber_id)
    )
    return {reader: mailed for reader, mailed in rows if mailed is not None}


def batches(notices: Iterable[Notice], mailed: dict[int, datetime], now: datetime) -> list[Batch]:
    """The mails due by ``now`` (pure): one a reader not mailed within ``MAIL_EVERY``."""
    by_reader: dict[int, list[Notice]] = defaultdict(list)
    for notice in notices:
        by_reader[notice.reader_id].append(notice)
    due = []
    for reader, waiting in sorted(by_reader.items()):
        last = mailed.get(reader)
        if last is not None and last > now - MAIL_EVERY:
            continue
        first = min(waiting, key=lambda notice: notice.comment_id)
        listed = sorted(
            (notice for notice in waiting if notice.kind is first.kind),
            key=lambda notice: notice.comment_id,
        )
        due.append(Batch(reader, first.kind, tuple(listed[:MOST_LISTED])))
    return due


def record(session: Session, batch: Batch, now: datetime) -> None:
    """The batch's comments are mailed to its reader: never again."""
    session.add_all(
        CommentNotice(
            subscriber_id=batch.reader_id,
            comment_id=notice.comment_id,
            kind=batch.kind,
            mailed_at=now,
        )
        for notice in batch.notices
    )
    session.flush()


def prune(session: Session, now: datetime) -> int:
    """Forget notices of comments too old to be mailed anyway; how many."""
    gone = session.execute(
        delete(CommentNotice)
        .where(CommentNotice.mailed_at < now - LOOK_BACK - MAIL_EVERY)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(gone, "rowcount", 0) or 0)


def switch(subscriber: Subscriber, kind: CommentMail, on: bool, now: datetime) -> None:
    """Turn one kind of mail on or off; mail about a paper's comments starts from ``now``."""
    if kind is CommentMail.REPLIES:
        subscriber.reply_mail = on
    elif not on:
        subscriber.paper_comment_mail_since = None
    elif subscriber.paper_comment_mail_since is None:
        subscriber.paper_comment_mail_since = now


def is_on(subscriber: Subscriber, kind: CommentMail) -> bool:
    if kind is CommentMail.REPLIES:
        return subscriber.reply_mail
    return subscriber.paper_comment_mail_since is not None
