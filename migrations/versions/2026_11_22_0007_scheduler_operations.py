"""Scheduler and operations: job runs, the scheduler lease, incidents (issue 8).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-22 21:25:00
"""

from __future__ import annotations

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
