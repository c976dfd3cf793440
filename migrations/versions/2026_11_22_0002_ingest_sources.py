"""Live ingest: community signals, feed state and the arXiv request gate.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 20:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("papers", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("withdrawn", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    op.create_table(
        "hf_daily_papers",
        sa.Column("daily_date", sa.Date(), nullable=False),
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("upvotes", sa.Integer(), nullable=False),
        sa.Column("num_comments", sa.Integer(), nullable=True),
        sa.Column("github_repo", sa.Text(), nullable=True),
        sa.Column("github_stars", sa.Integer(), nullable=True),
        sa.Column("ai_keywords", sa.JSON(), nullable=False),
        sa.Column("submitted_on_daily_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("daily_date", "arxiv_id", name=op.f("pk_hf_daily_papers")),
    )
    op.create_index(
        op.f("ix_hf_daily_papers_arxiv_id"), "hf_daily_papers", ["arxiv_id"], unique=False
    )
    op.create_table(
        "announcement_entries",
        sa.Column("announced_on", sa.Date(), nullable=False),
        sa.Column("category", sa.String(length=40), nullable=False),
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("announce_type", sa.String(length=16), nullable=False),
        sa.PrimaryKeyConstraint(
            "announced_on", "category", "arxiv_id", name=op.f("pk_announcement_entries")
        ),
    )
    op.create_index(
        op.f("ix_announcement_entries_arxiv_id"),
        "announcement_entries",
        ["arxiv_id"],
        unique=False,
    )
    op.create_table(
        "feed_states",
        sa.Column("url", sa.String(length=500), nullable=False),
        sa.Column("etag", sa.Text(), nullable=True),
        sa.Column("last_modified", sa.Text(), nullable=True),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("url", name=op.f("pk_feed_states")),
    )
    op.create_table(
        "request_gates",
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("held_until", sa.Double(), nullable=False),
        sa.Column("next_request_at", sa.Double(), nullable=False),
        sa.Column("holder", sa.String(length=80), nullable=True),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_request_gates")),
    )


def downgrade() -> None:
    op.drop_table("request_gates")
    op.drop_table("feed_states")
    op.drop_index(op.f("ix_announcement_entries_arxiv_id"), table_name="announcement_entries")
    op.drop_table("announcement_entries")
    op.drop_index(op.f("ix_hf_daily_papers_arxiv_id"), table_name="hf_daily_papers")
    op.drop_table("hf_daily_papers")
    with op.batch_alter_table("papers", schema=None) as batch_op:
        batch_op.drop_column("withdrawn")
