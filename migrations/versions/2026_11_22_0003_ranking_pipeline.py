"""Ranking pipeline: embeddings, topics and editions.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 20:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "paper_embeddings",
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("text_hash", sa.String(length=64), nullable=False),
        sa.Column("dimensions", sa.Integer(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["arxiv_id"],
            ["papers.arxiv_id"],
            name=op.f("fk_paper_embeddings_arxiv_id_papers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("arxiv_id", "model", name=op.f("pk_paper_embeddings")),
    )
    op.create_table(
        "topics",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("first_seen_on", sa.Date(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_topics")),
    )
    with op.batch_alter_table("topics", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_topics_first_seen_on"), ["first_seen_on"])
    _create_topic_days()
    _create_paper_topics()
    _create_editions()
    _create_edition_items()


def _create_topic_days() -> None:
    op.create_table(
        "topic_days",
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("window_size", sa.Integer(), nullable=False),
        sa.Column("baseline", sa.Float(), nullable=False),
        sa.Column("momentum", sa.Float(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("centroid", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["topic_id"],
            ["topics.id"],
            name=op.f("fk_topic_days_topic_id_topics"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("topic_id", "day", name=op.f("pk_topic_days")),
    )
    with op.batch_alter_table("topic_days", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_topic_days_day"), ["day"])


def _create_paper_topics() -> None:
    op.create_table(
        "paper_topics",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["arxiv_id"],
            ["papers.arxiv_id"],
            name=op.f("fk_paper_topics_arxiv_id_papers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["topic_id"],
            ["topics.id"],
            name=op.f("fk_paper_topics_topic_id_topics"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("day", "arxiv_id", name=op.f("pk_paper_topics")),
    )
    with op.batch_alter_table("paper_topics", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_paper_topics_topic_id"), ["topic_id"])


def _create_editions() -> None:
    op.create_table(
        "editions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("period", sa.String(length=8), nullable=False),
        sa.Column("edition_date", sa.Date(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("scorer", sa.String(length=80), nullable=False),
        sa.Column("scorer_version", sa.String(length=40), nullable=False),
        sa.Column("algorithm_version", sa.String(length=40), nullable=False),
        sa.Column("diversity_rule", sa.Text(), nullable=False),
        sa.Column("pool_size", sa.Integer(), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_editions")),
        sa.UniqueConstraint("period", "edition_date", "version", name=op.f("uq_editions_period")),
    )


def _create_edition_items() -> None:
    op.create_table(
        "edition_items",
        sa.Column("edition_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("components", sa.Text(), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["arxiv_id"], ["papers.arxiv_id"], name=op.f("fk_edition_items_arxiv_id_papers")
        ),
        sa.ForeignKeyConstraint(
            ["edition_id"],
            ["editions.id"],
            name=op.f("fk_edition_items_edition_id_editions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["topic_id"],
            ["topics.id"],
            name=op.f("fk_edition_items_topic_id_topics"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("edition_id", "position", name=op.f("pk_edition_items")),
    )
    with op.batch_alter_table("edition_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_edition_items_arxiv_id"), ["arxiv_id"])


def downgrade() -> None:
    for table in ("edition_items", "editions", "paper_topics", "topic_days", "topics"):
        op.drop_table(table)
    op.drop_table("paper_embeddings")
