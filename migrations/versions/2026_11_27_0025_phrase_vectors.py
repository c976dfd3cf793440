"""Topic label phrases' vectors, kept between days: ``phrase_vectors``.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-27 15:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "phrase_vectors",
        sa.Column("model", sa.String(length=300), primary_key=True),
        sa.Column("phrase", sa.String(length=500), primary_key=True),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.Column("used_on", sa.Date(), nullable=False),
    )
    op.create_index("ix_phrase_vectors_used_on", "phrase_vectors", ["used_on"])


def downgrade() -> None:
    op.drop_index("ix_phrase_vectors_used_on", table_name="phrase_vectors")
    op.drop_table("phrase_vectors")
