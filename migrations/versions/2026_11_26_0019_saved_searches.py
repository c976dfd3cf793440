"""Searches a reader follows: ``saved_searches``.

Each row is a search (its words, and a category or none) whose new matches make a section of
the reader's digest, and whose feeds the reader's page lists. Going back drops the table and
the searches in it.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-26 15:29:11
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "saved_searches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        sa.Column("query", sa.String(length=200), nullable=False),
        sa.Column("category", sa.String(length=40), nullable=False),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["subscriber_id"],
            ["subscribers.id"],
            name=op.f("fk_saved_searches_subscriber_id_subscribers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_saved_searches")),
        sa.UniqueConstraint(
            "subscriber_id",
            "query",
            "category",
            name=op.f("uq_saved_searches_subscriber_id"),
        ),
    )
    op.create_index(
        op.f("ix_saved_searches_subscriber_id"), "saved_searches", ["subscriber_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_saved_searches_subscriber_id"), table_name="saved_searches")
    op.drop_table("saved_searches")
