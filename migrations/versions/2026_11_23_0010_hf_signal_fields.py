"""More of what Hugging Face says of a paper on its daily page.

``hf_daily_papers`` gains the paper's project page, the HF user who submitted it to the page,
and the HF organization it was submitted under (its slug and its display name). All nullable:
rows stored before, and the flattened records (which have no slug), lack them.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23 15:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("hf_daily_papers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("project_page", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("submitted_by", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("organization_name", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("organization_fullname", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hf_daily_papers", schema=None) as batch_op:
        batch_op.drop_column("organization_fullname")
        batch_op.drop_column("organization_name")
        batch_op.drop_column("submitted_by")
        batch_op.drop_column("project_page")
