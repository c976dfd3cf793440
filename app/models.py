"""The ORM models every process shares: papers, their authors and categories, the ingest log.

The schema only changes through a migration in ``migrations/``; a test checks that these
models and the migrations agree.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import (
    DateTime,
    Dialect,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Explicit constraint names, so migrations can name what they alter (SQLite batch mode needs it).
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# Small rows looked up by their key: on SQLite, store them in the key's B-tree (no rowid), which
# halves the writes of a bulk import. Other databases ignore the option.
_CLUSTERED_ON_KEY = {"sqlite_with_rowid": False}


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back time-zone aware.

    SQLite keeps no offset, so without this a value would come back naive there and aware
    on PostgreSQL; naive input is refused rather than guessed at.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: Paperboy stores aware UTC timestamps")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Paper(Base):
    """One arXiv paper, keyed by its identifier without version.

    ``version``, ``primary_category`` and ``announced_on`` may be unknown for a source that
    lacks them (a daily listing has no version, a snapshot has no announcement date); a later
    source fills them in.
    """

    __tablename__ = "papers"

    arxiv_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    version: Mapped[int | None] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(Text)
    abstract: Mapped[str] = mapped_column(Text)
    primary_category: Mapped[str | None] = mapped_column(String(40))
    comment: Mapped[str | None] = mapped_column(Text)
    journal_ref: Mapped[str | None] = mapped_column(Text)
    doi: Mapped[str | None] = mapped_column(Text)
    license: Mapped[str | None] = mapped_column(Text)
    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The US/Eastern date on which arXiv first listed the paper.
    announced_on: Mapped[date | None] = mapped_column(index=True)
    # Hash of the metadata last taken from a source; an unchanged record is skipped cheaply.
    content_hash: Mapped[str] = mapped_column(String(64))
    first_stored_at: Mapped[datetime] = mapped_column(UTCDateTime, server_default=func.now())

    authors: Mapped[list[PaperAuthor]] = relationship(
        order_by="PaperAuthor.position", cascade="all, delete-orphan", passive_deletes=True
    )
    categories: Mapped[list[PaperCategory]] = relationship(
        order_by="PaperCategory.position", cascade="all, delete-orphan", passive_deletes=True
    )

    @property
    def author_names(self) -> list[str]:
        return [link.name for link in self.authors]

    @property
    def category_names(self) -> list[str]:
        return [link.category for link in self.categories]


class Author(Base):
    """One row per normalised author name: same name, same key (``jose-perez``)."""

    __tablename__ = "authors"
    __table_args__ = _CLUSTERED_ON_KEY

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    # Real listings hold names of any length (whole author lists glued into one "name").
    name: Mapped[str] = mapped_column(Text)


class PaperAuthor(Base):
    """A paper's author at a position, with the name as that paper writes it."""

    __tablename__ = "paper_authors"
    __table_args__ = _CLUSTERED_ON_KEY

    arxiv_id: Mapped[str] = mapped_column(
        ForeignKey("papers.arxiv_id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(primary_key=True)
    author_key: Mapped[str] = mapped_column(ForeignKey("authors.key"), index=True)
    name: Mapped[str] = mapped_column(Text)


class PaperCategory(Base):
    """A paper's arXiv category; which one is primary is ``Paper.primary_category``."""

    __tablename__ = "paper_categories"
    __table_args__ = _CLUSTERED_ON_KEY

    arxiv_id: Mapped[str] = mapped_column(
        ForeignKey("papers.arxiv_id", ondelete="CASCADE"), primary_key=True
    )
    category: Mapped[str] = mapped_column(String(40), primary_key=True, index=True)
    position: Mapped[int]


class IngestRun(Base):
    """The ingest log: one row per run of a source for a category and announcement date."""

    __tablename__ = "ingest_runs"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    source: Mapped[str] = mapped_column(String(40), index=True)
    category: Mapped[str | None] = mapped_column(String(40))
    announced_on: Mapped[date | None]
    detail: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    read_count: Mapped[int] = mapped_column(default=0)
    new_count: Mapped[int] = mapped_column(default=0)
    cross_count: Mapped[int] = mapped_column(default=0)
    replaced_count: Mapped[int] = mapped_column(default=0)
    updated_count: Mapped[int] = mapped_column(default=0)
    enriched_count: Mapped[int] = mapped_column(default=0)
    unchanged_count: Mapped[int] = mapped_column(default=0)
    rejected_count: Mapped[int] = mapped_column(default=0)
    error: Mapped[str | None] = mapped_column(Text)


# --- Live ingest (issue 3): community signals, feed state, the request gate. Migration 0002. ---


# --- Ranking pipeline (issue 4): embeddings, topics, editions. Migration 0003. ---


# --- Trending model (issue 5): what the trending score needs stored. Migration 0004. ---
