"""A paper's discussion: readers' comments, the name each shows, reports of comments, and
readers a moderator stopped from posting."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models.base import Base, StoredState, UTCDateTime


class CommentState(StrEnum):
    """Who sees a comment: everyone (``shown``), its author and moderators while it waits
    for one (``waiting``), nobody but them after a moderator hid it (``hidden``); a comment
    its author deleted, or whose author deleted their account, keeps its place as
    ``deleted`` with its text removed, so replies under it stay in context."""

    SHOWN = "shown"
    WAITING = "waiting"
    HIDDEN = "hidden"
    DELETED = "deleted"


class Comment(Base):
    """One comment on a paper, or a reply to one (one level: a reply's parent is a top
    comment). ``body`` is the Markdown as written; ``html`` its sanitized rendering."""

    __tablename__ = "comments"
    __table_args__ = (
        UniqueConstraint("subscriber_id", "once", name="uq_comments_once"),
        Index("ix_comments_thread", "arxiv_id", "id"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    arxiv_id: Mapped[str] = mapped_column(ForeignKey("papers.arxiv_id", ondelete="CASCADE"))
    # None once its author deleted their account ("deleted reader").
    subscriber_id: Mapped[int | None] = mapped_column(
        ForeignKey("subscribers.id", ondelete="SET NULL"), index=True
    )
    parent_id: Mapped[int | None] = mapped_column(
        ForeignKey("comments.id", ondelete="CASCADE"), index=True
    )
    body: Mapped[str] = mapped_column(Text)
    html: Mapped[str] = mapped_column(Text)
    state: Mapped[CommentState] = mapped_column(StoredState(CommentState, 16))
    # The form's one-time value: the same form sent twice posts one comment.
    once: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    edited_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Commenter(Base):
    """The name a reader shows on their comments (unique whatever its case, never their
    address), and whether a moderator stopped them from posting."""

    __tablename__ = "commenters"

    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), primary_key=True
    )
    display_name: Mapped[str] = mapped_column(String(40))
    name_key: Mapped[str] = mapped_column(String(160), unique=True)
    stopped_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    stopped_reason: Mapped[str | None] = mapped_column(Text)


class CommentReport(Base):
    """A reader's report of a comment, with their reason; one a reader and comment, open
    until a moderator decides about the comment."""

    __tablename__ = "comment_reports"
    __table_args__ = (
        UniqueConstraint("comment_id", "subscriber_id", name="uq_comment_reports_reader"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    comment_id: Mapped[int] = mapped_column(ForeignKey("comments.id", ondelete="CASCADE"))
    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), index=True
    )
    reason: Mapped[str] = mapped_column(Text)
    reported_at: Mapped[datetime] = mapped_column(UTCDateTime)
    settled_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class CommentMail(StrEnum):
    """The two kinds of mail about discussions, each turned off on its own: replies to a
    reader's comments, and new comments on a verified author's papers."""

    REPLIES = "replies"
    PAPERS = "papers"


class CommentNotice(Base):
    """A comment mailed to a reader, and when: it is never mailed to them again, and the
    newest ``mailed_at`` of a reader keeps their mails at most one an hour."""

    __tablename__ = "comment_notices"

    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), primary_key=True
    )
    comment_id: Mapped[int] = mapped_column(
        ForeignKey("comments.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    kind: Mapped[CommentMail] = mapped_column(StoredState(CommentMail, 16))
    mailed_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
