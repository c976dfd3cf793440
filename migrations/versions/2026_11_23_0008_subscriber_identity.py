"""Subscriber identity: links bound to a key that dies with the subscription (issue 14).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 09:10:00
"""

from __future__ import annotations

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
