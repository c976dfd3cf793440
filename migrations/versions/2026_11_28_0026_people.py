"""People behind author names: ``people``, ``paper_people``, ``subscribers.claimed_person`` and
``subscribers.followed_people``.

Every author name becomes one person holding all of the name's papers, so every page, claim
and follow keeps meaning what it meant; ``paperboy people`` then splits names it finds to be
several people. A claim of a name becomes a claim of its person (``claimed_author`` stays,
naming the person's name); a follow of a name becomes a follow of its person too, and the
follow of the name stays, so it keeps taking every paper of the name. Going back drops the
people; claims and follows of names stay as they were.

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-28 03:30:00
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | None = None
depends_on: str | None = None


# SQLite rebuilds the table to add a foreign key: its ids must stay never reused.
KEEP_IDS = {"sqlite_autoincrement": True}


def upgrade() -> None:
    _create_tables()
    with op.batch_alter_table("subscribers", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.add_column(sa.Column("claimed_person", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("followed_people", sa.JSON(), server_default="[]", nullable=False)
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_subscribers_claimed_person_people"),
            "people",
            ["claimed_person"],
            ["id"],
            ondelete="SET NULL",
        )
    _one_person_per_name()


def _create_tables() -> None:
    op.create_table(
        "people",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("author_key", sa.String(length=200), nullable=False),
        sa.Column("moved_to", sa.Integer(), nullable=True),
        sa.Column("hidden", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_key"], ["authors.key"], name=op.f("fk_people_author_key_authors")
        ),
        sa.ForeignKeyConstraint(
            ["moved_to"], ["people.id"], name=op.f("fk_people_moved_to_people")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_people")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_people_author_key"), "people", ["author_key"], unique=False)
    op.create_table(
        "paper_people",
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("author_key", sa.String(length=200), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["arxiv_id"],
            ["papers.arxiv_id"],
            name=op.f("fk_paper_people_arxiv_id_papers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["person_id"], ["people.id"], name=op.f("fk_paper_people_person_id_people")
        ),
        sa.PrimaryKeyConstraint("arxiv_id", "author_key", name=op.f("pk_paper_people")),
    )
    op.create_index(op.f("ix_paper_people_person_id"), "paper_people", ["person_id"], unique=False)
    op.create_index(
        op.f("ix_paper_people_author_key"), "paper_people", ["author_key"], unique=False
    )
    _create_corrections()


def _create_corrections() -> None:
    op.create_table(
        "person_corrections",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("arxiv_id", sa.String(length=40), nullable=False),
        sa.Column("author_key", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("withdrawn_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["arxiv_id"],
            ["papers.arxiv_id"],
            name=op.f("fk_person_corrections_arxiv_id_papers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["person_id"], ["people.id"], name=op.f("fk_person_corrections_person_id_people")
        ),
        sa.ForeignKeyConstraint(
            ["subscriber_id"],
            ["subscribers.id"],
            name=op.f("fk_person_corrections_subscriber_id_subscribers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_person_corrections")),
        sa.UniqueConstraint(
            "subscriber_id",
            "person_id",
            "arxiv_id",
            name=op.f("uq_person_corrections_subscriber_id"),
        ),
    )
    for column in ("subscriber_id", "person_id", "author_key"):
        op.create_index(
            op.f(f"ix_person_corrections_{column}"), "person_corrections", [column], unique=False
        )


def _one_person_per_name() -> None:
    """Each name one person with all its papers; each claimed name's person claimed."""
    op.get_bind().execute(
        sa.text(
            "INSERT INTO people (author_key, hidden, created_at) "
            "SELECT key, false, :now FROM authors ORDER BY key"
        ).bindparams(sa.bindparam("now", type_=sa.DateTime(timezone=True))),
        {"now": datetime.now(UTC)},
    )
    op.execute(
        "INSERT INTO paper_people (arxiv_id, author_key, person_id) "
        "SELECT DISTINCT paper_authors.arxiv_id, paper_authors.author_key, people.id "
        "FROM paper_authors JOIN people ON people.author_key = paper_authors.author_key"
    )
    op.execute(
        "UPDATE subscribers SET claimed_person = "
        "(SELECT people.id FROM people WHERE people.author_key = subscribers.claimed_author) "
        "WHERE claimed_author IS NOT NULL"
    )
    _follows_of_people()


def _follows_of_people() -> None:
    """Each reader following names follows their people as well."""
    bind = op.get_bind()
    subscribers = sa.table(
        "subscribers",
        sa.column("id", sa.Integer()),
        sa.column("followed_authors", sa.JSON()),
        sa.column("followed_people", sa.JSON()),
    )
    found = bind.execute(sa.text("SELECT author_key, id FROM people")).all()
    people: dict[str, int] = {row[0]: row[1] for row in found}
    rows = bind.execute(sa.select(subscribers.c.id, subscribers.c.followed_authors)).all()
    for subscriber, names in rows:
        followed = [people[key] for key in names or () if key in people]
        if followed:
            bind.execute(
                subscribers.update()
                .where(subscribers.c.id == subscriber)
                .values(followed_people=followed)
            )


def downgrade() -> None:
    with op.batch_alter_table("subscribers", table_kwargs=KEEP_IDS) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("fk_subscribers_claimed_person_people"), type_="foreignkey"
        )
        batch_op.drop_column("followed_people")
        batch_op.drop_column("claimed_person")
    op.drop_table("person_corrections")
    op.drop_index(op.f("ix_paper_people_author_key"), table_name="paper_people")
    op.drop_index(op.f("ix_paper_people_person_id"), table_name="paper_people")
    op.drop_table("paper_people")
    op.drop_index(op.f("ix_people_author_key"), table_name="people")
    op.drop_table("people")
