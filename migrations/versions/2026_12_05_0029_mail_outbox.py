"""The mail outbox: confirmations, sign-in links and alerts kept until the server takes them.

New table ``mail_outbox``: each mail's kind, envelope and rendered bytes, the random ticket of
the reader's status page, and its attempts (when the next is due, the last error, when it was
sent or given up). Nothing existing changes; going back drops the table and the mails still
waiting in it.

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-05 21:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "mail_outbox",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("sender", sa.String(length=340), nullable=False),
        sa.Column("recipient", sa.String(length=340), nullable=False),
        sa.Column("message", sa.LargeBinary(), nullable=False),
        sa.Column("ticket", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("given_up_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_mail_outbox"),
        sa.UniqueConstraint("ticket", name="uq_mail_outbox_ticket"),
    )
    op.create_index("ix_mail_outbox_next_attempt_at", "mail_outbox", ["next_attempt_at"])


def downgrade() -> None:
    op.drop_index("ix_mail_outbox_next_attempt_at", table_name="mail_outbox")
    op.drop_table("mail_outbox")
