"""Every paper of a day scored: ``day_scores``.

A day edition keeps its first papers (``edition_items``); this table keeps the score, chance
and reasons of every paper announced that day, as the same edition's scorer ranked them, so
that personal digests and pages choose from the whole day. Editions published before this
migration have no rows here until their day is ranked again; readers of them choose from the
edition's papers, as before. Going back drops the table.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26 10:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "day_scores",
        sa.Column("edition_id", sa.Integer(), nullable=False),
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("components", sa.Text(), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=True),
        sa.Column("chance", sa.Float(), nullable=True),
        sa.Column("reasons", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["edition_id"],
            ["editions.id"],
            name=op.f("fk_day_scores_edition_id_editions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["arxiv_id"], ["papers.arxiv_id"], name=op.f("fk_day_scores_arxiv_id_papers")
        ),
        sa.ForeignKeyConstraint(
            ["topic_id"],
            ["topics.id"],
            name=op.f("fk_day_scores_topic_id_topics"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("edition_id", "arxiv_id", name=op.f("pk_day_scores")),
    )


def downgrade() -> None:
    op.drop_table("day_scores")
