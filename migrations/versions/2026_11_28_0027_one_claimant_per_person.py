"""One claimant per person: a unique index on ``subscribers.claimed_person``.

Two readers could hold one person: two claims at the same moment both passed the check before
either was stored, and migration 0026 made every claim of a name a claim of its one person,
where claims of a name had not been exclusive. The earliest reader to subscribe keeps the
claim; the others keep their claim of the name (``claimed_author``) and lose the person, as if
they had claimed the name's page before people were told apart. Going back drops the index.

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-28 12:15:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | None = None
depends_on: str | None = None

INDEX = "ix_subscribers_claimed_person"


def upgrade() -> None:
    op.execute(
        sa.text(
            "UPDATE subscribers SET claimed_person = NULL WHERE claimed_person IS NOT NULL "
            "AND id > (SELECT min(first.id) FROM subscribers AS first "
            "WHERE first.claimed_person = subscribers.claimed_person)"
        )
    )
    op.create_index(INDEX, "subscribers", ["claimed_person"], unique=True)


def downgrade() -> None:
    op.drop_index(INDEX, table_name="subscribers")
