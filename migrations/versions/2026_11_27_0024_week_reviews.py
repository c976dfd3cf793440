"""A week in review, stored as written: ``week_reviews``, one row per week.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-27 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "week_reviews",
        sa.Column("week", sa.Date(), primary_key=True),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("week_reviews")
