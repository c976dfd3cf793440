"""Web front end and JSON API: what pages and search need stored (issue 6).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22 21:10:00
"""

from __future__ import annotations

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
