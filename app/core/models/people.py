"""The people behind author names: each a stable id, and which of a name's papers are theirs.

``authors`` holds name strings; one name can be several people (``ranking.people`` splits
them). A person's id never changes while any of its papers stay with it; a person left
without papers after a new split keeps its row with ``moved_to`` set, so its old address
answers with a permanent redirect.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models.base import Base, UTCDateTime


class Person(Base):
    """One person publishing under the name ``author_key``."""

    __tablename__ = "people"
    # Ids are addresses (``/people/12``): never reused, even after a row is gone.
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    author_key: Mapped[str] = mapped_column(ForeignKey("authors.key"), index=True)
    # Set when a new split left this person no papers: the person holding most of them now.
    moved_to: Mapped[int | None] = mapped_column(ForeignKey("people.id"))
    # Only the person's claimant may hide the page; hidden, it answers as if it did not exist.
    hidden: Mapped[bool] = mapped_column(default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


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
