"""Subscriber identity: links bound to a key that dies with the subscription.

- ``subscribers.email_key``: the mailbox (the whole address lower-cased), unique, so ``Bob@``
  and ``bob@`` are one subscriber. Rows that already differ only in letter case are merged:
  the confirmed one (else the oldest) stays.
- ``subscribers.link_key``: a random value every signed link carries.
- ``subscribers`` ids are never reused on SQLite (AUTOINCREMENT), as on PostgreSQL.
- ``sign_in_keys``: the key sign-in links and session cookies of an address carry.
- ``votes.voter`` is the mailbox key too.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 09:10:00
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None

# Which of several rows of one mailbox stays: the one the person confirmed, then the oldest.
_KEEP_ORDER = {"active": 0, "paused": 1, "unsubscribed": 2, "pending": 3}


def upgrade() -> None:
    with _sqlite_foreign_keys_off():
        with _copy_of_subscribers() as batch_op:
            batch_op.add_column(sa.Column("email_key", sa.String(length=320), nullable=True))
            batch_op.add_column(sa.Column("link_key", sa.String(length=32), nullable=True))
        _fill_subscriber_keys()
        with _copy_of_subscribers() as batch_op:
            batch_op.alter_column("email_key", existing_type=sa.String(320), nullable=False)
            batch_op.alter_column("link_key", existing_type=sa.String(32), nullable=False)
            batch_op.create_unique_constraint(batch_op.f("uq_subscribers_email_key"), ["email_key"])
            # The mailbox key is unique now; two spellings of one mailbox are one row.
            batch_op.drop_constraint(batch_op.f("uq_subscribers_email"), type_="unique")
    op.create_table(
        "sign_in_keys",
        sa.Column("email_key", sa.String(length=320), nullable=False),
        sa.Column("key", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("email_key", name=op.f("pk_sign_in_keys")),
    )
    _lower_case_voters()


def downgrade() -> None:
    op.drop_table("sign_in_keys")
    with _sqlite_foreign_keys_off(), _copy_of_subscribers() as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_subscribers_email_key"), type_="unique")
        batch_op.create_unique_constraint(batch_op.f("uq_subscribers_email"), ["email"])
        batch_op.drop_column("link_key")
        batch_op.drop_column("email_key")


def _copy_of_subscribers() -> Any:
    # SQLite makes AUTOINCREMENT only in CREATE TABLE: copy the table (other databases alter).
    sqlite = op.get_bind().dialect.name == "sqlite"
    return op.batch_alter_table(
        "subscribers",
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": True},
    )


@contextmanager
def _sqlite_foreign_keys_off() -> Iterator[None]:
    """On SQLite, copying a table (batch mode) drops the old one, and a DROP with foreign keys
    on deletes the children (deliveries, feedback) by cascade: turn them off around the copy,
    in one transaction of our own, and check every reference before committing. Where they are
    off already (migrations/env.py runs the whole upgrade so, in one transaction, and checks
    them before its commit), there is nothing to do: a commit here would make the upgrade half
    done for a process killed after it."""
    bind = op.get_bind()
    if bind.dialect.name != "sqlite" or not bind.exec_driver_sql("PRAGMA foreign_keys").scalar():
        yield
        return
    with op.get_context().autocommit_block():
        bind.exec_driver_sql("PRAGMA foreign_keys=OFF")
        bind.exec_driver_sql("BEGIN")
        try:
            yield
            broken = bind.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise RuntimeError(f"foreign keys broken by the migration: {broken[:5]}")
            bind.exec_driver_sql("COMMIT")
        except BaseException:
            bind.exec_driver_sql("ROLLBACK")
            raise
        finally:
            bind.exec_driver_sql("PRAGMA foreign_keys=ON")


def _fill_subscriber_keys() -> None:
    bind = op.get_bind()
    subscribers = sa.table(
        "subscribers",
        sa.column("id", sa.Integer),
        sa.column("email", sa.String),
        sa.column("status", sa.String),
        sa.column("email_key", sa.String),
        sa.column("link_key", sa.String),
    )
    rows = bind.execute(sa.select(subscribers.c.id, subscribers.c.email, subscribers.c.status))
    kept: set[str] = set()
    for row_id, email, _status in sorted(rows, key=lambda r: (_KEEP_ORDER.get(r[2], 9), r[0])):
        key = str(email).lower()
        if key in kept:
            _delete_subscriber(row_id)
            continue
        kept.add(key)
        bind.execute(
            subscribers.update()
            .where(subscribers.c.id == row_id)
            .values(email_key=key, link_key=secrets.token_hex(16))
        )


def _delete_subscriber(row_id: int) -> None:
    # By hand: foreign keys (and so cascades) are off on SQLite during the copy.
    for table in ("deliveries", "digest_feedback"):
        op.execute(sa.text(f"DELETE FROM {table} WHERE subscriber_id = :id").bindparams(id=row_id))  # noqa: S608 (table names are constants)
    op.execute(sa.text("DELETE FROM subscribers WHERE id = :id").bindparams(id=row_id))


def _lower_case_voters() -> None:
    # Votes cast as Bob@ and as bob@ on one paper are one person's: keep one of them.
    op.execute(
        "DELETE FROM votes WHERE EXISTS (SELECT 1 FROM votes AS other "
        "WHERE lower(other.voter) = lower(votes.voter) AND other.arxiv_id = votes.arxiv_id "
        "AND other.voter < votes.voter)"
    )
    op.execute("UPDATE votes SET voter = lower(voter) WHERE voter <> lower(voter)")
