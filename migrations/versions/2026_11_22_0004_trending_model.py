"""Trending model (issue 5): no schema change.

The trending score reads what ingest and ranking already store (papers, authors, Hugging
Face signals, embeddings, topics); its model is a file shipped in the package. The revision
stays so that the chain of revisions already applied to databases is unbroken.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 20:45:00
"""

from __future__ import annotations

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
