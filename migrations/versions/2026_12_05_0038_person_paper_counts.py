"""How many papers each person holds, kept where the split writes people.

``people`` gains ``paper_count``: the papers of the person that still list its name, as the
last split of the name left them. A person's page and API answer read it for their total and
page count instead of counting every paper on every request. Existing people are counted
from ``paper_people`` here; a person that moved holds none. Going back drops the column.

Revision ID: 0038
Revises: 0037
Create Date: 2026-12-05 23:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0038"
down_revision: str | None = "0037"
branch_labels: str | None = None
depends_on: str | None = None

# SQLite rebuilds the table to change it: its ids must stay never reused.
KEEP_IDS = {"sqlite_autoincrement": True}

# A paper whose author list no longer names the person's name is not counted (as pages do).
COUNT_PAPERS = sa.text(
    "UPDATE people SET paper_count = ("
    " SELECT count(*) FROM paper_people"
    " WHERE paper_people.person_id = people.id AND EXISTS ("
    "  SELECT 1 FROM paper_authors"
    "  WHERE paper_authors.arxiv_id = paper_people.arxiv_id"
    "  AND paper_authors.author_key = paper_people.author_key))"
)


def upgrade() -> None:
    with op.batch_alter_table("people", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.add_column(
            sa.Column("paper_count", sa.Integer(), server_default="0", nullable=False)
        )
    op.execute(COUNT_PAPERS)


def downgrade() -> None:
    with op.batch_alter_table("people", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.drop_column("paper_count")
