"""Live ingest: community signals, feed state and the arXiv request gate (issue 3).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 20:45:00
"""

from __future__ import annotations

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
