"""Readers on the site: a reading list, a claimed author page, a private feed (personal feed).

- ``saved_papers``: a reader's reading list (subscriber, paper, when saved), deleted with the
  subscriber or the paper.
- ``subscribers.claimed_author``: the author key of the page the reader said is theirs.
- ``subscribers.feed_key``: what the private feed's token carries; revoking draws a new one.
  Both nullable: a reader has neither until they ask.

A reader of the site who never subscribed is a subscriber with the status ``web`` (a new
value of the string column: no schema change), never mailed.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-23 20:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "saved_papers",
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["arxiv_id"],
            ["papers.arxiv_id"],
            name=op.f("fk_saved_papers_arxiv_id_papers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["subscriber_id"],
            ["subscribers.id"],
            name=op.f("fk_saved_papers_subscriber_id_subscribers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("subscriber_id", "arxiv_id", name=op.f("pk_saved_papers")),
    )
    with op.batch_alter_table("subscribers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("claimed_author", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("feed_key", sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("subscribers", schema=None) as batch_op:
        batch_op.drop_column("feed_key")
        batch_op.drop_column("claimed_author")
    op.drop_table("saved_papers")
