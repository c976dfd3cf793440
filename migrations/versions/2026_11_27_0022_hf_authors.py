"""Hugging Face records keep their authors: ``hf_daily_papers.authors``.

The trending model's author history counts every featured paper of an author; a featured paper
Paperboy never stored from arXiv (before it was installed, or outside its categories) had no
authors, so live days scored with less history than the model learned from. Rows stored
before stay null (their papers' stored authors are read instead). Going back drops the column.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-27 05:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("hf_daily_papers") as batch_op:
        batch_op.add_column(sa.Column("authors", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hf_daily_papers") as batch_op:
        batch_op.drop_column("authors")
