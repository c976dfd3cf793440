"""Verified researchers: ORCID iDs, verified claims, moderators and their decisions.

``subscribers`` gains ``orcid`` (the iD a reader proved by signing in with ORCID) and
``claim_verified_at``/``claim_verified_by``; ``people`` gains ``hidden_by``;
``person_corrections`` gains ``moderation``. New tables: ``orcid_papers`` (what arXiv's
author feed lists for an iD), ``moderators`` and ``moderation_decisions`` (the audit log).

Every existing claim stays, unverified: the unique index on ``claimed_person`` becomes a plain
one, and a partial unique index allows one verified claimant a person. A page hidden before
stays hidden by its claimant (``hidden_by`` names them). Going back drops what was added and
keeps the earliest claimant of each person, as migration 0027 did.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-05 20:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | None = None
depends_on: str | None = None

# SQLite rebuilds the table to change it: its ids must stay never reused.
KEEP_IDS = {"sqlite_autoincrement": True}
CLAIMED = "ix_subscribers_claimed_person"
VERIFIED = "ix_subscribers_verified_claim"
IS_VERIFIED = sa.text("claim_verified_at IS NOT NULL")


def upgrade() -> None:
    _create_tables()
    op.drop_index(CLAIMED, table_name="subscribers")
    with op.batch_alter_table("subscribers", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.add_column(sa.Column("orcid", sa.String(length=19), nullable=True))
        batch_op.add_column(
            sa.Column("claim_verified_at", sa.DateTime(timezone=True), nullable=True)
        )
        batch_op.add_column(sa.Column("claim_verified_by", sa.String(length=340), nullable=True))
        batch_op.create_unique_constraint("uq_subscribers_orcid", ["orcid"])
    op.create_index(CLAIMED, "subscribers", ["claimed_person"])
    op.create_index(
        VERIFIED,
        "subscribers",
        ["claimed_person"],
        unique=True,
        sqlite_where=IS_VERIFIED,
        postgresql_where=IS_VERIFIED,
    )
    with op.batch_alter_table("people", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.add_column(sa.Column("hidden_by", sa.String(length=340), nullable=True))
    with op.batch_alter_table("person_corrections") as batch_op:
        batch_op.add_column(sa.Column("moderation", sa.String(length=16), nullable=True))
    op.execute(
        sa.text(
            "UPDATE people SET hidden_by = (SELECT 'reader:' || subscribers.id FROM subscribers "
            "WHERE subscribers.claimed_person = people.id) WHERE hidden"
        )
    )


def _create_tables() -> None:
    op.create_table(
        "orcid_papers",
        sa.Column("orcid", sa.String(length=19), nullable=False),
        sa.Column("arxiv_id", sa.String(length=32), nullable=False),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("orcid", "arxiv_id"),
    )
    op.create_table(
        "moderators",
        sa.Column("email_key", sa.String(length=320), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("email_key"),
    )
    op.create_table(
        "moderation_decisions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("subscriber_id", sa.Integer(), nullable=True),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("arxiv_id", sa.String(length=32), nullable=True),
        sa.Column("decision", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("moderator", sa.String(length=320), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"]),
        sa.ForeignKeyConstraint(["subscriber_id"], ["subscribers.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_moderation_decisions_person_id", "moderation_decisions", ["person_id"])
    op.create_index(
        "ix_moderation_decisions_subscriber_id", "moderation_decisions", ["subscriber_id"]
    )


def downgrade() -> None:
    op.drop_table("moderation_decisions")
    op.drop_table("moderators")
    op.drop_table("orcid_papers")
    with op.batch_alter_table("person_corrections") as batch_op:
        batch_op.drop_column("moderation")
    with op.batch_alter_table("people", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.drop_column("hidden_by")
    op.drop_index(VERIFIED, table_name="subscribers")
    op.drop_index(CLAIMED, table_name="subscribers")
    with op.batch_alter_table("subscribers", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.drop_constraint("uq_subscribers_orcid", type_="unique")
        batch_op.drop_column("claim_verified_by")
        batch_op.drop_column("claim_verified_at")
        batch_op.drop_column("orcid")
    op.execute(
        sa.text(
            "UPDATE subscribers SET claimed_person = NULL WHERE claimed_person IS NOT NULL "
            "AND id > (SELECT min(first.id) FROM subscribers AS first "
            "WHERE first.claimed_person = subscribers.claimed_person)"
        )
    )
    op.create_index(CLAIMED, "subscribers", ["claimed_person"], unique=True)
