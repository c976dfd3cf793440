"""Lists a group shares: a reader's list published at ``/lists/{slug}``, edited together.

New tables: ``shared_lists`` (a reading list shared: slug, title, description, whether the
owner's notes show, the owner's shown name, when published), ``shared_list_papers`` (its
papers, notes and who added each), ``list_editors`` (invited addresses, the reader each became
and the name they show), ``list_follows`` (readers following a published list) and
``list_changes`` (every change and who made it). Nothing existing changes; going back drops
the five tables, and with them every shared list (the readers' own lists stay).

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-05 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0031"
down_revision: str | None = "0030"
branch_labels: str | None = None
depends_on: str | None = None


def _when(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _list_key(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["list_id"],
        ["shared_lists.list_id"],
        name=f"fk_{table}_list_id_shared_lists",
        ondelete="CASCADE",
    )


def _reader_key(table: str, column: str, ondelete: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["subscribers.id"], name=f"fk_{table}_{column}_subscribers", ondelete=ondelete
    )


def upgrade() -> None:
    op.create_table(
        "shared_lists",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(length=80), nullable=False),
        sa.Column("title", sa.String(length=80), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("show_notes", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("owner_name", sa.String(length=40), nullable=False),
        _when("published_at", nullable=True),
        _when("created_at"),
        sa.ForeignKeyConstraint(
            ["list_id"],
            ["reading_lists.id"],
            name="fk_shared_lists_list_id_reading_lists",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("list_id", name="pk_shared_lists"),
        sa.UniqueConstraint("slug", name="uq_shared_lists_slug"),
    )
    op.create_table(
        "shared_list_papers",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("added_by", sa.Integer(), nullable=True),
        _when("added_at"),
        _list_key("shared_list_papers"),
        sa.ForeignKeyConstraint(
            ["arxiv_id"],
            ["papers.arxiv_id"],
            name="fk_shared_list_papers_arxiv_id_papers",
            ondelete="CASCADE",
        ),
        _reader_key("shared_list_papers", "added_by", "SET NULL"),
        sa.PrimaryKeyConstraint("list_id", "arxiv_id", name="pk_shared_list_papers"),
    )
    op.create_index("ix_shared_list_papers_added_by", "shared_list_papers", ["added_by"])
    op.create_index("ix_shared_list_papers_added_at", "shared_list_papers", ["added_at"])
    op.create_table(
        "list_editors",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("email_key", sa.String(length=320), nullable=False),
        sa.Column("invite_key", sa.String(length=32), nullable=False),
        sa.Column("subscriber_id", sa.Integer(), nullable=True),
        sa.Column("display_name", sa.String(length=40), nullable=False),
        _when("invited_at"),
        _when("joined_at", nullable=True),
        _list_key("list_editors"),
        _reader_key("list_editors", "subscriber_id", "CASCADE"),
        sa.PrimaryKeyConstraint("list_id", "email_key", name="pk_list_editors"),
    )
    op.create_index("ix_list_editors_subscriber_id", "list_editors", ["subscriber_id"])
    op.create_table(
        "list_follows",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        _when("followed_at"),
        _list_key("list_follows"),
        _reader_key("list_follows", "subscriber_id", "CASCADE"),
        sa.PrimaryKeyConstraint("list_id", "subscriber_id", name="pk_list_follows"),
    )
    op.create_index("ix_list_follows_subscriber_id", "list_follows", ["subscriber_id"])
    op.create_table(
        "list_changes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("changed_by", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=False),
        _when("changed_at"),
        _list_key("list_changes"),
        _reader_key("list_changes", "changed_by", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_list_changes"),
    )
    op.create_index("ix_list_changes_list_id", "list_changes", ["list_id"])
    op.create_index("ix_list_changes_changed_by", "list_changes", ["changed_by"])


def downgrade() -> None:
    op.drop_index("ix_list_changes_changed_by", table_name="list_changes")
    op.drop_index("ix_list_changes_list_id", table_name="list_changes")
    op.drop_table("list_changes")
    op.drop_index("ix_list_follows_subscriber_id", table_name="list_follows")
    op.drop_table("list_follows")
    op.drop_index("ix_list_editors_subscriber_id", table_name="list_editors")
    op.drop_table("list_editors")
    op.drop_index("ix_shared_list_papers_added_at", table_name="shared_list_papers")
    op.drop_index("ix_shared_list_papers_added_by", table_name="shared_list_papers")
    op.drop_table("shared_list_papers")
    op.drop_table("shared_lists")
