"""A reader's "I was away since": ``subscribers.away_since``.

Set from "For you", it makes the reader's next day digest a catch-up of the days since then
(digest.catch_up), and is cleared once that digest is sent. Going back drops the column.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-26 16:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("subscribers") as batch_op:
        batch_op.add_column(sa.Column("away_since", sa.Date(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("subscribers") as batch_op:
        batch_op.drop_column("away_since")
