"""A reader's digest may carry the papers discussed since the one before.

``subscribers`` gains ``discussed_in_digest`` (list the papers that got new comments in the
digest's day or week; off for every reader, existing ones included, until they ask). Going
back drops the column.

Revision ID: 0037
Revises: 0036
Create Date: 2026-12-05 23:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0037"
down_revision: str | None = "0036"
branch_labels: str | None = None
depends_on: str | None = None

# SQLite rebuilds the table to change it: its ids must stay never reused.
KEEP_IDS = {"sqlite_autoincrement": True}


def upgrade() -> None:
    with op.batch_alter_table("subscribers", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.add_column(
            sa.Column(
                "discussed_in_digest", sa.Boolean(), server_default=sa.false(), nullable=False
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("subscribers", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.drop_column("discussed_in_digest")
