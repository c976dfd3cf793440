"""What the ranking pipeline stores: embeddings, topics and published editions."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any, NamedTuple

from sqlalchemy import (
    JSON,
    Float,
    ForeignKey,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.core.models.base import Base, StoredState, UTCDateTime
from app.core.periods import Period


class PaperEmbedding(Base):
    """A paper's vector under one model, for the text whose hash is ``text_hash``.

    One row per (paper, model): when the text changes (a replaced version with a new abstract)
    the row is overwritten; while the hash matches it is never recomputed.
    """

    __tablename__ = "paper_embeddings"

    arxiv_id: Mapped[str] = mapped_column(
        ForeignKey("papers.arxiv_id", ondelete="CASCADE"), primary_key=True
    )
    model: Mapped[str] = mapped_column(String(200), primary_key=True)
    text_hash: Mapped[str] = mapped_column(String(64))
    # L2-normalised float32, little-endian, ``dimensions`` values.
    dimensions: Mapped[int]
    vector: Mapped[bytes] = mapped_column(LargeBinary)
    computed_at: Mapped[datetime] = mapped_column(UTCDateTime)


LONGEST_PHRASE = 500


class PhraseVector(Base):
    """A topic label phrase's vector under one label model, kept so that each day embeds only
    the phrases it has not met: the topic window moves a day at a time, and most of a day's
    candidate phrases were candidates the day before. ``used_on`` is the newest day that
    asked for it; phrases no day has asked for in a while are dropped."""

    __tablename__ = "phrase_vectors"

    model: Mapped[str] = mapped_column(String(300), primary_key=True)
    phrase: Mapped[str] = mapped_column(String(LONGEST_PHRASE), primary_key=True)
    # L2-normalised float32, little-endian.
    vector: Mapped[bytes] = mapped_column(LargeBinary)
    used_on: Mapped[date] = mapped_column(index=True)


class Topic(Base):
    """A topic with a stable identity: the same id while its centroid stays close day to day."""

    __tablename__ = "topics"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    model: Mapped[str] = mapped_column(String(200))
    first_seen_on: Mapped[date] = mapped_column(index=True)


class TopicStatus(StrEnum):
    """A topic's trend on a day, against its own recent sizes (``ranking.topics.trend``)."""

    NEW = "new"
    GROWING = "growing"
    FADING = "fading"
    STEADY = "steady"


class TopicDay(Base):
    """A topic as seen on one announcement day: its size, trend, label and centroid."""

    __tablename__ = "topic_days"

    topic_id: Mapped[int] = mapped_column(
        ForeignKey("topics.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[date] = mapped_column(primary_key=True, index=True)
    size: Mapped[int]
    window_size: Mapped[int]
    baseline: Mapped[float] = mapped_column(Float)
    momentum: Mapped[float] = mapped_column(Float)
    status: Mapped[TopicStatus] = mapped_column(StoredState(TopicStatus, 16))
    label: Mapped[str] = mapped_column(Text)
    centroid: Mapped[bytes] = mapped_column(LargeBinary)


class PaperTopic(Base):
    """The topic a paper was put in on its announcement day."""

    __tablename__ = "paper_topics"

    day: Mapped[date] = mapped_column(primary_key=True)
    arxiv_id: Mapped[str] = mapped_column(
        ForeignKey("papers.arxiv_id", ondelete="CASCADE"), primary_key=True
    )
    topic_id: Mapped[int] = mapped_column(ForeignKey("topics.id", ondelete="CASCADE"), index=True)


class EditionKey(NamedTuple):
    """An edition as readers know it, whatever its version: its period and date.

    A tuple, so a list of keys is what ``tuple_(period, edition_date).in_(...)`` takes.
    """

    period: Period
    edition_date: date


class Edition(Base):
    """A published ranked list for a period (day, week, month) and date, in a version.

    Downstream keys on (period, edition_date); a later version is a refresh of the same edition.
    """

    __tablename__ = "editions"
    __table_args__ = (UniqueConstraint("period", "edition_date", "version"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    period: Mapped[Period] = mapped_column(String(8))
    edition_date: Mapped[date]
    version: Mapped[int]
    scorer: Mapped[str] = mapped_column(String(80))
    scorer_version: Mapped[str] = mapped_column(String(40))
    algorithm_version: Mapped[str] = mapped_column(String(40))
    diversity_rule: Mapped[str] = mapped_column(Text)
    pool_size: Mapped[int]
    published_at: Mapped[datetime] = mapped_column(UTCDateTime)

    items: Mapped[list[EditionItem]] = relationship(
        order_by="EditionItem.position", cascade="all, delete-orphan", passive_deletes=True
    )


class EditionItem(Base):
    """One paper at a position of an edition, with its score and the named parts of it."""

    __tablename__ = "edition_items"

    edition_id: Mapped[int] = mapped_column(
        ForeignKey("editions.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(primary_key=True)
    arxiv_id: Mapped[str] = mapped_column(ForeignKey("papers.arxiv_id"), index=True)
    score: Mapped[float] = mapped_column(Float)
    # JSON object of component name to value.
    components: Mapped[str] = mapped_column(Text)
    topic_id: Mapped[int | None] = mapped_column(ForeignKey("topics.id", ondelete="SET NULL"))
    # The calibrated chance that Hugging Face features the paper (day editions of a calibrated
    # scorer only) and the reasons, a JSON list of {"factor", "text", "value"} biggest first
    # (``app.core.explanations``); null for scorers that give neither.
    chance: Mapped[float | None] = mapped_column(Float)
    reasons: Mapped[str | None] = mapped_column(Text)


class DayScore(Base):
    """Every paper announced on a day edition's day, as that edition's scorer ranked it: the
    edition itself shows the first ``edition_size`` (diversified); personal digests, alerts
    and pages read the whole day here."""

    __tablename__ = "day_scores"

    edition_id: Mapped[int] = mapped_column(
        ForeignKey("editions.id", ondelete="CASCADE"), primary_key=True
    )
    arxiv_id: Mapped[str] = mapped_column(ForeignKey("papers.arxiv_id"), primary_key=True)
    # 1 for the day's best score (ties by arXiv id), before the edition's diversity rule.
    rank: Mapped[int]
    score: Mapped[float] = mapped_column(Float)
    components: Mapped[str] = mapped_column(Text)
    topic_id: Mapped[int | None] = mapped_column(ForeignKey("topics.id", ondelete="SET NULL"))
    chance: Mapped[float | None] = mapped_column(Float)
    reasons: Mapped[str | None] = mapped_column(Text)


class EmergingTopic(Base):
    """One subject the emerging-topic radar flagged for a week (``ranking.radar``), strongest
    first; a rerun of the week replaces its rows."""

    __tablename__ = "emerging_topics"

    week: Mapped[date] = mapped_column(primary_key=True)  # its Monday
    position: Mapped[int] = mapped_column(primary_key=True)
    model: Mapped[str] = mapped_column(String(200))
    score: Mapped[float] = mapped_column(Float)
    baseline_share: Mapped[float] = mapped_column(Float)
    recent_share: Mapped[float] = mapped_column(Float)
    week_share: Mapped[float] = mapped_column(Float)
    # Papers of the subject in each week the radar read, oldest first (a JSON list).
    weekly_papers: Mapped[list[int]] = mapped_column(JSON)
    label: Mapped[str] = mapped_column(Text)
    new_phrases: Mapped[list[str]] = mapped_column(JSON)
    # The recent papers nearest the subject's centre, nearest first (a JSON list of ids).
    founding: Mapped[list[str]] = mapped_column(JSON)
    first_paper: Mapped[str] = mapped_column(ForeignKey("papers.arxiv_id", ondelete="CASCADE"))
    # The day topic most of its recent papers are in: what a reader follows to keep up.
    topic_id: Mapped[int | None] = mapped_column(ForeignKey("topics.id", ondelete="SET NULL"))
    computed_at: Mapped[datetime] = mapped_column(UTCDateTime)


class WeekReview(Base):
    """A week in review as ``ranking.week_review`` wrote it (JSON), rewritten with each
    publication of the week; a rerun on the same rows writes the same body."""

    __tablename__ = "week_reviews"

    week: Mapped[date] = mapped_column(primary_key=True)  # its Monday
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    computed_at: Mapped[datetime] = mapped_column(UTCDateTime)
