"""Discussion: comments on papers, display names, reports and posting stops.

New tables: ``comments`` (a reader's comment or reply on a paper, its Markdown and its
sanitized HTML, its state), ``commenters`` (the name a reader shows, unique whatever its case,
and a moderator's stop on their posting) and ``comment_reports`` (a reader's report of a
comment, with a reason). ``moderation_decisions`` gains ``comment_id``, and its ``person_id``
may be empty: a decision about a comment or about posting concerns no person. Going back drops
the tables and the decisions that concern no person.

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-05 23:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0032"
down_revision: str | None = "0031"
branch_labels: str | None = None
depends_on: str | None = None

# SQLite rebuilds the table to change it: its ids must stay never reused.
KEEP_IDS = {"sqlite_autoincrement": True}


def upgrade() -> None:
    _create_comments()
    op.create_table(
        "commenters",
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        sa.Column("display_name", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=160), nullable=False),
        sa.Column("stopped_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("stopped_reason", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["subscriber_id"], ["subscribers.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("subscriber_id"),
        sa.UniqueConstraint("name_key"),
    )
    op.create_table(
        "comment_reports",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("comment_id", sa.Integer(), nullable=False),
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("reported_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["comment_id"], ["comments.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["subscriber_id"], ["subscribers.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("comment_id", "subscriber_id", name="uq_comment_reports_reader"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_comment_reports_subscriber_id", "comment_reports", ["subscriber_id"])
    with op.batch_alter_table("moderation_decisions", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.add_column(sa.Column("comment_id", sa.Integer(), nullable=True))
        batch_op.alter_column("person_id", existing_type=sa.Integer(), nullable=True)


def _create_comments() -> None:
    op.create_table(
        "comments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("subscriber_id", sa.Integer(), nullable=True),
        sa.Column("parent_id", sa.Integer(), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("html", sa.Text(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("once", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("edited_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["arxiv_id"], ["papers.arxiv_id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["subscriber_id"], ["subscribers.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["parent_id"], ["comments.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("subscriber_id", "once", name="uq_comments_once"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_comments_thread", "comments", ["arxiv_id", "id"])
    op.create_index("ix_comments_subscriber_id", "comments", ["subscriber_id"])
    op.create_index("ix_comments_parent_id", "comments", ["parent_id"])
    op.create_index("ix_comments_created_at", "comments", ["created_at"])


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM moderation_decisions WHERE person_id IS NULL"))
    with op.batch_alter_table("moderation_decisions", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.alter_column("person_id", existing_type=sa.Integer(), nullable=False)
        batch_op.drop_column("comment_id")
    op.drop_table("comment_reports")
    op.drop_table("commenters")
    op.drop_table("comments")
