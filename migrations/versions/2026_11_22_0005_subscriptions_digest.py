"""Subscriptions, votes and the digest: subscribers, tokens, feedback, delivery ledger.

Revision ID: 0005
Revises: 0003
Create Date: 2026-11-22 21:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None

TABLES = (
    "votes",
    "digest_feedback",
    "deliveries",
    "used_tokens",
    "subscribers",
    "subscribe_attempts",
    "phrase_embeddings",
)


def upgrade() -> None:
    _create_phrase_embeddings()
    _create_subscribe_attempts()
    _create_subscribers()
    _create_used_tokens()
    _create_deliveries()
    _create_digest_feedback()
    _create_votes()


def _create_phrase_embeddings() -> None:
    op.create_table(
        "phrase_embeddings",
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("text_hash", sa.String(length=64), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("model", "text_hash", name=op.f("pk_phrase_embeddings")),
    )


def _create_subscribe_attempts() -> None:
    op.create_table(
        "subscribe_attempts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("key", sa.String(length=400), nullable=False),
        sa.Column("attempted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subscribe_attempts")),
    )
    with op.batch_alter_table("subscribe_attempts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_subscribe_attempts_key"), ["key"], unique=False)


def _create_subscribers() -> None:
    op.create_table(
        "subscribers",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("categories", sa.JSON(), nullable=False),
        sa.Column("interests", sa.Text(), nullable=False),
        sa.Column("exclusions", sa.Text(), nullable=False),
        sa.Column("followed_topics", sa.JSON(), nullable=False),
        sa.Column("muted_topics", sa.JSON(), nullable=False),
        sa.Column("followed_authors", sa.JSON(), nullable=False),
        sa.Column("muted_authors", sa.JSON(), nullable=False),
        sa.Column("frequency", sa.String(length=8), nullable=False),
        sa.Column("weekday", sa.Integer(), nullable=False),
        sa.Column("delivery_hour", sa.Integer(), nullable=False),
        sa.Column("time_zone", sa.String(length=64), nullable=False),
        sa.Column("max_items", sa.Integer(), nullable=False),
        sa.Column("send_empty", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("failure_count", sa.Integer(), nullable=False),
        sa.Column("last_failure", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("unsubscribed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subscribers")),
        sa.UniqueConstraint("email", name=op.f("uq_subscribers_email")),
    )
    with op.batch_alter_table("subscribers", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_subscribers_status"), ["status"], unique=False)


def _create_used_tokens() -> None:
    op.create_table(
        "used_tokens",
        sa.Column("token_id", sa.String(length=64), nullable=False),
        sa.Column("purpose", sa.String(length=16), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("token_id", name=op.f("pk_used_tokens")),
    )
    with op.batch_alter_table("used_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_used_tokens_used_at"), ["used_at"], unique=False)


def _create_deliveries() -> None:
    op.create_table(
        "deliveries",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        sa.Column("period", sa.String(length=8), nullable=False),
        sa.Column("edition_date", sa.Date(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("message_id", sa.String(length=200), nullable=True),
        sa.Column("item_count", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["subscriber_id"],
            ["subscribers.id"],
            name=op.f("fk_deliveries_subscriber_id_subscribers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deliveries")),
        sa.UniqueConstraint(
            "subscriber_id", "period", "edition_date", name=op.f("uq_deliveries_subscriber_id")
        ),
    )
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_deliveries_status"), ["status"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_deliveries_subscriber_id"), ["subscriber_id"], unique=False
        )


def _create_digest_feedback() -> None:
    op.create_table(
        "digest_feedback",
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("value", sa.Integer(), nullable=False),
        sa.Column("given_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["arxiv_id"],
            ["papers.arxiv_id"],
            name=op.f("fk_digest_feedback_arxiv_id_papers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["subscriber_id"],
            ["subscribers.id"],
            name=op.f("fk_digest_feedback_subscriber_id_subscribers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("subscriber_id", "arxiv_id", name=op.f("pk_digest_feedback")),
    )


def _create_votes() -> None:
    op.create_table(
        "votes",
        sa.Column("voter", sa.String(length=320), nullable=False),
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("voted_on", sa.Date(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["arxiv_id"],
            ["papers.arxiv_id"],
            name=op.f("fk_votes_arxiv_id_papers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("voter", "arxiv_id", name=op.f("pk_votes")),
    )
    with op.batch_alter_table("votes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_votes_arxiv_id"), ["arxiv_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_votes_voted_on"), ["voted_on"], unique=False)


def downgrade() -> None:
    for table in TABLES:
        op.drop_table(table)
