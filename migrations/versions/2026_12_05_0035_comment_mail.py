"""Mail about discussions: a reader's two switches and the notices already mailed.

``subscribers`` gains ``reply_mail`` (mail me when someone replies to my comment; on for every
reader, existing ones included) and ``paper_comment_mail_since`` (a verified author's mail
about new comments on their papers, for comments from that time on; empty: off). New table
``comment_notices``: one row a reader and comment mailed to them, so no comment is mailed to
the same reader twice. Going back drops the table and the two columns.

Revision ID: 0035
Revises: 0034
Create Date: 2026-12-05 23:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0035"
down_revision: str | None = "0034"
branch_labels: str | None = None
depends_on: str | None = None

# SQLite rebuilds the table to change it: its ids must stay never reused.
KEEP_IDS = {"sqlite_autoincrement": True}


def upgrade() -> None:
    with op.batch_alter_table("subscribers", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.add_column(
            sa.Column("reply_mail", sa.Boolean(), server_default=sa.true(), nullable=False)
        )
        batch_op.add_column(
            sa.Column("paper_comment_mail_since", sa.DateTime(timezone=True), nullable=True)
        )
    op.create_table(
        "comment_notices",
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        sa.Column("comment_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("mailed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["subscriber_id"], ["subscribers.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["comment_id"], ["comments.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("subscriber_id", "comment_id"),
    )
    op.create_index("ix_comment_notices_comment_id", "comment_notices", ["comment_id"])
    op.create_index("ix_comment_notices_mailed_at", "comment_notices", ["mailed_at"])


def downgrade() -> None:
    op.drop_table("comment_notices")
    with op.batch_alter_table("subscribers", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.drop_column("paper_comment_mail_since")
        batch_op.drop_column("reply_mail")
