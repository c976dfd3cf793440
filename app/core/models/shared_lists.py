"""Lists a group shares: a reader's named list made public at ``/lists/{slug}``, its papers
(with who added them), its co-editors and their invitations, its followers, and the record of
every change and who made it."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models.base import Base, StoredState, UTCDateTime


class SharedList(Base):
    """A reader's list (``reading_lists``) shared: its public slug, title and description,
    whether the owner's notes show, and whether it is published (``published_at``) or kept
    among its editors. Deleted with the list, and so with its owner."""

    __tablename__ = "shared_lists"

    list_id: Mapped[int] = mapped_column(
        ForeignKey("reading_lists.id", ondelete="CASCADE"), primary_key=True
    )
    # Drawn from the title when first shared and kept through renames: links stay good.
    slug: Mapped[str] = mapped_column(String(80), unique=True)
    title: Mapped[str] = mapped_column(String(80))
    description: Mapped[str] = mapped_column(Text, default="")
    show_notes: Mapped[bool] = mapped_column(default=False, server_default=false())
    # The name the owner shows on the list's page ("" shows "an editor"), never an address.
    owner_name: Mapped[str] = mapped_column(String(40), default="")
    published_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SharedListPaper(Base):
    """A paper on a shared list, its note, and which editor added it (None: since deleted)."""

    __tablename__ = "shared_list_papers"

    list_id: Mapped[int] = mapped_column(
        ForeignKey("shared_lists.list_id", ondelete="CASCADE"), primary_key=True
    )
    arxiv_id: Mapped[str] = mapped_column(
        ForeignKey("papers.arxiv_id", ondelete="CASCADE"), primary_key=True
    )
    note: Mapped[str | None] = mapped_column(Text)
    added_by: Mapped[int | None] = mapped_column(
        ForeignKey("subscribers.id", ondelete="SET NULL"), index=True
    )
    added_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


class ListEditor(Base):
    """An address invited to co-edit a shared list, and the reader it became once they took
    the invitation (``joined_at``); the invitation's links carry ``invite_key``, drawn anew
    with each invitation, so removing an editor voids every link mailed to them."""

    __tablename__ = "list_editors"

    list_id: Mapped[int] = mapped_column(
        ForeignKey("shared_lists.list_id", ondelete="CASCADE"), primary_key=True
    )
    email_key: Mapped[str] = mapped_column(String(320), primary_key=True)
    invite_key: Mapped[str] = mapped_column(String(32))
    subscriber_id: Mapped[int | None] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), index=True
    )
    # The name the editor shows on the list ("" shows "an editor"), never their address.
    display_name: Mapped[str] = mapped_column(String(40), default="")
    invited_at: Mapped[datetime] = mapped_column(UTCDateTime)
    joined_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class ListFollow(Base):
    """A reader following a published list: its new papers come in their digest."""

    __tablename__ = "list_follows"

    list_id: Mapped[int] = mapped_column(
        ForeignKey("shared_lists.list_id", ondelete="CASCADE"), primary_key=True
    )
    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    followed_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ListChangeKind(StrEnum):
    """What a change of a shared list did."""

    ADDED = "added"
    REMOVED = "removed"
    NOTE = "note"
    RENAMED = "renamed"


class ListChange(Base):
    """One change of a shared list and the reader who made it (None: since deleted)."""

    __tablename__ = "list_changes"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    list_id: Mapped[int] = mapped_column(
        ForeignKey("shared_lists.list_id", ondelete="CASCADE"), index=True
    )
    changed_by: Mapped[int | None] = mapped_column(
        ForeignKey("subscribers.id", ondelete="SET NULL"), index=True
    )
    kind: Mapped[ListChangeKind] = mapped_column(StoredState(ListChangeKind, 16))
    # The paper added, removed or annotated; the new title of a rename.
    subject: Mapped[str] = mapped_column(String(200), default="")
    changed_at: Mapped[datetime] = mapped_column(UTCDateTime)
