"""Ranking pipeline: embeddings, topics and editions (issue 4).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 20:45:00
"""

from __future__ import annotations

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
