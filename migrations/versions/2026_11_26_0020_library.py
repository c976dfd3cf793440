"""A reader's library: named lists (``reading_lists``), and on each saved paper its list, when
it was read and the reader's note; "not interested" on a thumbs down (``digest_feedback.hidden``).

Saved papers keep their rows: they start on the reading list alone, unread, with no note.
Deleting a list files its papers back under the reading list (``ON DELETE SET NULL``). Going
back drops the lists, the read state, the notes and the hidden flags.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-26 15:49:18
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "reading_lists",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["subscriber_id"],
            ["subscribers.id"],
            name=op.f("fk_reading_lists_subscriber_id_subscribers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reading_lists")),
        sa.UniqueConstraint("subscriber_id", "name", name=op.f("uq_reading_lists_subscriber_id")),
    )
    op.create_index(
        op.f("ix_reading_lists_subscriber_id"), "reading_lists", ["subscriber_id"], unique=False
    )
    with op.batch_alter_table("digest_feedback") as batch_op:
        batch_op.add_column(
            sa.Column("hidden", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    with op.batch_alter_table("saved_papers") as batch_op:
        batch_op.add_column(sa.Column("list_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("read_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("note", sa.Text(), nullable=True))
        batch_op.create_index(batch_op.f("ix_saved_papers_list_id"), ["list_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_saved_papers_list_id_reading_lists"),
            "reading_lists",
            ["list_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    with op.batch_alter_table("saved_papers") as batch_op:
        batch_op.drop_constraint(
            batch_op.f("fk_saved_papers_list_id_reading_lists"), type_="foreignkey"
        )
        batch_op.drop_index(batch_op.f("ix_saved_papers_list_id"))
        batch_op.drop_column("note")
        batch_op.drop_column("read_at")
        batch_op.drop_column("list_id")
    with op.batch_alter_table("digest_feedback") as batch_op:
        batch_op.drop_column("hidden")
    op.drop_index(op.f("ix_reading_lists_subscriber_id"), table_name="reading_lists")
    op.drop_table("reading_lists")
