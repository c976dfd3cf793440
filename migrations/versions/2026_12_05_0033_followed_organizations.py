"""Followed organizations: ``subscribers.followed_organizations``.

Each reader's Hugging Face organizations followed, by slug (``ByteDance-Seed``), as a JSON
list beside their followed topics, authors and people; every existing reader starts with none.
Going back drops the column and the follows it held.

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-05 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0033"
down_revision: str | None = "0032"
branch_labels: str | None = None
depends_on: str | None = None

# SQLite rebuilds the table to change it: its ids must stay never reused.
KEEP_IDS = {"sqlite_autoincrement": True}


def upgrade() -> None:
    with op.batch_alter_table("subscribers", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.add_column(
            sa.Column("followed_organizations", sa.JSON(), server_default="[]", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("subscribers", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.drop_column("followed_organizations")
