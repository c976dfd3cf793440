"""Sign-in links tied to a browser: ``used_tokens.nonce_hash``.

A sign-in link spent now keeps the SHA-256 of the spending browser's CSRF nonce, and a repeat
within moments signs in only from that browser. A link spent before this migration has none:
its repeat is refused, as a link used by another browser would be (a grace of two minutes at
most is lost). Going back drops the column, and the older rule (a repeat from anywhere within
the grace) returns.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26 08:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("used_tokens", schema=None) as batch_op:
        batch_op.add_column(sa.Column("nonce_hash", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("used_tokens", schema=None) as batch_op:
        batch_op.drop_column("nonce_hash")
