"""The emerging-topic radar's flags: ``emerging_topics``, one row per week and position.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-27 08:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "emerging_topics",
        sa.Column("week", sa.Date(), primary_key=True),
        sa.Column("position", sa.Integer(), primary_key=True),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("baseline_share", sa.Float(), nullable=False),
        sa.Column("recent_share", sa.Float(), nullable=False),
        sa.Column("week_share", sa.Float(), nullable=False),
        sa.Column("weekly_papers", sa.JSON(), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("new_phrases", sa.JSON(), nullable=False),
        sa.Column("founding", sa.JSON(), nullable=False),
        sa.Column(
            "first_paper",
            sa.String(40),
            sa.ForeignKey("papers.arxiv_id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "topic_id", sa.Integer(), sa.ForeignKey("topics.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("emerging_topics")
