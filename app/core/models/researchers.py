"""Who a researcher is: the papers arXiv lists for an ORCID iD, the moderators the operator
named, and every decision a moderator made (the audit log a claimant reads)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models.base import Base, UTCDateTime


class OrcidPaper(Base):
    """A paper arXiv's author feed lists for an ORCID iD, as last read.

    Not a foreign key to ``papers``: the feed may list papers this service never ingested.
    """

    __tablename__ = "orcid_papers"

    orcid: Mapped[str] = mapped_column(String(19), primary_key=True)
    arxiv_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    fetched_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Moderator(Base):
    """A reader the operator named a moderator (``paperboy moderators add``), by mailbox."""

    __tablename__ = "moderators"

    email_key: Mapped[str] = mapped_column(String(320), primary_key=True)
    added_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ModerationDecision(Base):
    """A moderator's approval or refusal of a claim, a correction or a hidden page, or their
    hiding or restoring of a comment, with its reason: kept for good, readable by the reader it
    concerns."""

    __tablename__ = "moderation_decisions"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    # "claim", "correction", "hide", "comment" or "posting".
    kind: Mapped[str] = mapped_column(String(16))
    subscriber_id: Mapped[int | None] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), index=True
    )
    # None for a decision about a comment or about posting.
    person_id: Mapped[int | None] = mapped_column(ForeignKey("people.id"), index=True)
    arxiv_id: Mapped[str | None] = mapped_column(String(32))
    # The comment a "comment" decision hid or restored (not a key: the log outlives it).
    comment_id: Mapped[int | None]
    # "approved" or "refused"; "hidden" or "restored" (a comment); "stopped" or "allowed".
    decision: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    moderator: Mapped[str] = mapped_column(String(320))
    decided_at: Mapped[datetime] = mapped_column(UTCDateTime)
