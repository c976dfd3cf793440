"""Sign-in proof: ``sign_in_keys.signed_in_at``, when the mailbox first opened a sign-in link.

A sign-in key is made when anyone asks a link for an address, so the purge of unconfirmed
sign-ups, which spared every mailbox with a key, spared an address a stranger subscribed and
asked a link for. From now on only an opened link (``signed_in_at`` set) spares one.

Existing keys all get ``signed_in_at = created_at``: the stored data cannot tell a used key
from an unused one (spent tokens are kept by a random id, not by address, and a reader who
signed in may have done nothing else). Counting an unused key as used keeps a stranger's
sign-up as a ``web`` row that is never mailed; counting a used one as unused would delete a
real reader's reading list, thumbs and follows. So only keys made after this migration can
be unproven.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-23 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("sign_in_keys", schema=None) as batch_op:
        batch_op.add_column(sa.Column("signed_in_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE sign_in_keys SET signed_in_at = created_at")


def downgrade() -> None:
    with op.batch_alter_table("sign_in_keys", schema=None) as batch_op:
        batch_op.drop_column("signed_in_at")
