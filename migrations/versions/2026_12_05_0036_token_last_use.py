"""When each personal access token was last used.

``access_tokens`` gains ``last_used_at``: set when a token acts for its reader (at most once a
minute), shown on the For you page and in the reader's data export. Tokens made before stay
null ("never used") until their next use. Going back drops the column.

Revision ID: 0036
Revises: 0035
Create Date: 2026-12-05 23:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0036"
down_revision: str | None = "0035"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("access_tokens") as batch_op:
        batch_op.add_column(sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("access_tokens") as batch_op:
        batch_op.drop_column("last_used_at")
