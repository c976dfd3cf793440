"""Personal access tokens: a reader's keys for an assistant (the MCP server's own tools).

New table ``access_tokens``: each token's reader, name, scope (``read`` or ``write``), the
SHA-256 of the token (never the token), its first characters, and when it was made, expires
and was revoked. Nothing existing changes; going back drops the table, and every token made
stops working.

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-05 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "access_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("scope", sa.String(length=8), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("hint", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["subscriber_id"],
            ["subscribers.id"],
            name=op.f("fk_access_tokens_subscriber_id_subscribers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_access_tokens")),
        sa.UniqueConstraint("digest", name=op.f("uq_access_tokens_digest")),
    )
    op.create_index(
        op.f("ix_access_tokens_subscriber_id"), "access_tokens", ["subscriber_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_access_tokens_subscriber_id"), table_name="access_tokens")
    op.drop_table("access_tokens")
