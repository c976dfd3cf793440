"""Hugging Face's own fields kept: its summary, its discussion and the paper's thumbnail.

``hf_daily_papers`` gains ``ai_summary`` (Hugging Face's one-sentence summary), ``discussion_id``
(its comment thread) and ``thumbnail_url`` (where its social card was fetched from); rows
stored before stay null until their day is read again. New table ``hf_thumbnails``: one small
WebP per paper, fetched once at ingest, with the SHA-256 that names its URL. Going back drops
the table and the three columns.

Revision ID: 0034
Revises: 0033
Create Date: 2026-12-05 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0034"
down_revision: str | None = "0033"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("hf_daily_papers") as batch_op:
        batch_op.add_column(sa.Column("ai_summary", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("discussion_id", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("thumbnail_url", sa.Text(), nullable=True))
    op.create_table(
        "hf_thumbnails",
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("source_url", sa.Text(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("image", sa.LargeBinary(), nullable=False),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("arxiv_id", name="pk_hf_thumbnails"),
    )
    op.create_index("ix_hf_thumbnails_digest", "hf_thumbnails", ["digest"])


def downgrade() -> None:
    op.drop_index("ix_hf_thumbnails_digest", table_name="hf_thumbnails")
    op.drop_table("hf_thumbnails")
    with op.batch_alter_table("hf_daily_papers") as batch_op:
        batch_op.drop_column("thumbnail_url")
        batch_op.drop_column("discussion_id")
        batch_op.drop_column("ai_summary")
