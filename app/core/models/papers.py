"""Papers, their authors and categories, the ingest log (the foundation), and the people
behind author names: each a stable id, and which of a name's papers are theirs.

``authors`` holds name strings; one name can be several people (``ranking.people`` splits
them). A person's id never changes while any of its papers stay with it; a person left
without papers after a new split keeps its row with ``moved_to`` set, so its old address
answers with a permanent redirect.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import (
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    func,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.core.models.base import CLUSTERED_ON_KEY, Base, StoredState, UTCDateTime


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
    # Withdrawn by its authors (live ingest): kept and shown, but left out of editions.
    withdrawn: Mapped[bool] = mapped_column(default=False, server_default=false())
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
    __table_args__ = CLUSTERED_ON_KEY

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    # Real listings hold names of any length (whole author lists glued into one "name").
    name: Mapped[str] = mapped_column(Text)


class PaperAuthor(Base):
    """A paper's author at a position, with the name as that paper writes it."""

    __tablename__ = "paper_authors"
    __table_args__ = CLUSTERED_ON_KEY

    arxiv_id: Mapped[str] = mapped_column(
        ForeignKey("papers.arxiv_id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(primary_key=True)
    author_key: Mapped[str] = mapped_column(ForeignKey("authors.key"), index=True)
    name: Mapped[str] = mapped_column(Text)


class PaperCategory(Base):
    """A paper's arXiv category; which one is primary is ``Paper.primary_category``."""

    __tablename__ = "paper_categories"
    __table_args__ = CLUSTERED_ON_KEY

    arxiv_id: Mapped[str] = mapped_column(
        ForeignKey("papers.arxiv_id", ondelete="CASCADE"), primary_key=True
    )
    category: Mapped[str] = mapped_column(String(40), primary_key=True, index=True)
    position: Mapped[int]


class IngestRunStatus(StrEnum):
    """How a run of an ingest source ended, least to most worrying (a run that found several
    things keeps the worst); ``RUNNING`` until a bulk import ends."""

    RUNNING = "running"
    OK = "ok"
    # The source had nothing new since the last run (an unchanged feed).
    UNCHANGED = "unchanged"
    EMPTY = "empty"
    SMALLER = "smaller"
    # The source serves an older day than another category already has.
    STALE = "stale"
    # Some records were rejected or missing.
    PARTIAL = "partial"
    FAILED = "failed"


class IngestRun(Base):
    """The ingest log: one row per run of a source for a category and announcement date
    (``status``: see :class:`IngestRunStatus`)."""

    __tablename__ = "ingest_runs"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    source: Mapped[str] = mapped_column(String(40), index=True)
    category: Mapped[str | None] = mapped_column(String(40))
    announced_on: Mapped[date | None]
    detail: Mapped[str | None] = mapped_column(Text)
    status: Mapped[IngestRunStatus] = mapped_column(StoredState(IngestRunStatus, 16))
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


class Person(Base):
    """One person publishing under the name ``author_key``."""

    __tablename__ = "people"
    # Ids are addresses (``/people/12``): never reused, even after a row is gone.
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    author_key: Mapped[str] = mapped_column(ForeignKey("authors.key"), index=True)
    # Set when a new split left this person no papers: the person holding most of them now.
    moved_to: Mapped[int | None] = mapped_column(ForeignKey("people.id"))
    # Only a verified claimant or a moderator may hide the page; hidden, it answers as if it
    # did not exist. ``hidden_by`` is who hid it ("reader:<id>" or "moderator:<address>"):
    # only they (or a moderator) show it again.
    hidden: Mapped[bool] = mapped_column(default=False, server_default=false())
    hidden_by: Mapped[str | None] = mapped_column(String(340))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # How many papers the person holds, as the last split of the name left them (the split
    # writes it, so a page of a person with thousands of papers counts none of them).
    paper_count: Mapped[int] = mapped_column(default=0, server_default="0")


class PaperPerson(Base):
    """Which person of the name ``author_key`` wrote the paper."""

    __tablename__ = "paper_people"

    arxiv_id: Mapped[str] = mapped_column(
        ForeignKey("papers.arxiv_id", ondelete="CASCADE"), primary_key=True
    )
    # Indexed: a name's page and its split read the name's rows.
    author_key: Mapped[str] = mapped_column(String(200), primary_key=True, index=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id"), index=True)


class PersonCorrection(Base):
    """A reader's "this paper is not by this person", kept as a labelled example.

    It changes that reader's view at once; everyone's once the person's claimant says it or
    enough readers agree (``app.services.corrections``). Taking it back sets ``withdrawn_at``:
    the row stays, so what readers said and unsaid remains to learn from.
    """

    __tablename__ = "person_corrections"
    __table_args__ = (UniqueConstraint("subscriber_id", "person_id", "arxiv_id"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), index=True
    )
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id"), index=True)
    arxiv_id: Mapped[str] = mapped_column(ForeignKey("papers.arxiv_id", ondelete="CASCADE"))
    # The name the paper was under: the split reads corrections by name.
    author_key: Mapped[str] = mapped_column(String(200), index=True)
    # When it was last said: saying it again after taking it back moves it.
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    withdrawn_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # A moderator's decision ("approved" holds for everyone, "refused" for no one but the
    # reader who said it); the reason lies in ``moderation_decisions``.
    moderation: Mapped[str | None] = mapped_column(String(16))
