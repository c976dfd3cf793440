"""An edition item's chance and reasons in words.

``edition_items`` gains ``chance``, the calibrated probability, estimated at announcement, that
Hugging Face features the paper, and ``reasons``, a JSON list of ``{"factor", "text", "value"}``.
Both nullable: items stored before, week and month editions (no chance), and scorers without
calibration or explanation lack them.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-23 18:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("edition_items", schema=None) as batch_op:
        batch_op.add_column(sa.Column("chance", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("reasons", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("edition_items", schema=None) as batch_op:
        batch_op.drop_column("reasons")
        batch_op.drop_column("chance")
