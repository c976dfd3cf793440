"""Deliveries in flight: ``deliveries.sending_since``, when a digest was handed to the server.

A delivery is now marked ``sending`` (with its Message-ID) before its DATA command, so a
sender killed after the server's acceptance leaves a row that says so, and the next run sends
it again with the same Message-ID. No row is in flight before this migration. Going back, an
in-flight row becomes ``pending`` (the status the older code knows): it is sent again, with a
new Message-ID, as the older code would have.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("sending_since", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.execute("UPDATE deliveries SET status = 'pending' WHERE status = 'sending'")
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.drop_column("sending_since")
