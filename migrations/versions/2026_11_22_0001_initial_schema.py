"""Initial schema: papers, authors, their links, categories and the ingest log.

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-22 07:42:18.792381
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:

    op.create_table(
        "authors",
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_authors")),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "ingest_runs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("source", sa.String(length=40), nullable=False),
        sa.Column("category", sa.String(length=40), nullable=True),
        sa.Column("announced_on", sa.Date(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("read_count", sa.Integer(), nullable=False),
        sa.Column("new_count", sa.Integer(), nullable=False),
        sa.Column("cross_count", sa.Integer(), nullable=False),
        sa.Column("replaced_count", sa.Integer(), nullable=False),
        sa.Column("updated_count", sa.Integer(), nullable=False),
        sa.Column("enriched_count", sa.Integer(), nullable=False),
        sa.Column("unchanged_count", sa.Integer(), nullable=False),
        sa.Column("rejected_count", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ingest_runs")),
    )
    with op.batch_alter_table("ingest_runs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ingest_runs_source"), ["source"], unique=False)

    op.create_table(
        "papers",
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("abstract", sa.Text(), nullable=False),
        sa.Column("primary_category", sa.String(length=40), nullable=True),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("journal_ref", sa.Text(), nullable=True),
        sa.Column("doi", sa.Text(), nullable=True),
        sa.Column("license", sa.Text(), nullable=True),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("announced_on", sa.Date(), nullable=True),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column(
            "first_stored_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("arxiv_id", name=op.f("pk_papers")),
    )
    with op.batch_alter_table("papers", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_papers_announced_on"), ["announced_on"], unique=False)

    op.create_table(
        "paper_authors",
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("author_key", sa.String(length=200), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["arxiv_id"],
            ["papers.arxiv_id"],
            name=op.f("fk_paper_authors_arxiv_id_papers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["author_key"], ["authors.key"], name=op.f("fk_paper_authors_author_key_authors")
        ),
        sa.PrimaryKeyConstraint("arxiv_id", "position", name=op.f("pk_paper_authors")),
        sqlite_with_rowid=False,
    )
    with op.batch_alter_table("paper_authors", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_paper_authors_author_key"), ["author_key"], unique=False
        )

    op.create_table(
        "paper_categories",
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("category", sa.String(length=40), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["arxiv_id"],
            ["papers.arxiv_id"],
            name=op.f("fk_paper_categories_arxiv_id_papers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("arxiv_id", "category", name=op.f("pk_paper_categories")),
        sqlite_with_rowid=False,
    )
    with op.batch_alter_table("paper_categories", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_paper_categories_category"), ["category"], unique=False
        )


def downgrade() -> None:

    with op.batch_alter_table("paper_categories", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_paper_categories_category"))

    op.drop_table("paper_categories")
    with op.batch_alter_table("paper_authors", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_paper_authors_author_key"))

    op.drop_table("paper_authors")
    with op.batch_alter_table("papers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_papers_announced_on"))

    op.drop_table("papers")
    with op.batch_alter_table("ingest_runs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ingest_runs_source"))

    op.drop_table("ingest_runs")
    op.drop_table("authors")
