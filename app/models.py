"""The ORM models every process shares: papers, their authors and categories, the ingest log.

The schema only changes through a migration in ``migrations/``; a test checks that these
models and the migrations agree.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import (
    JSON,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
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
    # Withdrawn by its authors (live ingest, issue 3): kept and shown, but left out of editions.
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


class HfDailyPaper(Base):
    """Hugging Face Daily Papers community signals: one row per paper and daily page.

    Read by the ranker. ``daily_date`` is the date of the HF page (``?date=``), not arXiv's
    announcement; counts are as fetched last (re-fetching a day updates them). ``arxiv_id`` has
    no foreign key: a signal is kept even while the paper's arXiv metadata could not be fetched.
    """

    __tablename__ = "hf_daily_papers"

    daily_date: Mapped[date] = mapped_column(primary_key=True)
    arxiv_id: Mapped[str] = mapped_column(String(40), primary_key=True, index=True)
    upvotes: Mapped[int]
    num_comments: Mapped[int | None]
    github_repo: Mapped[str | None] = mapped_column(Text)
    github_stars: Mapped[int | None]
    # Keywords HF's model extracted from the abstract (a JSON list of strings; may be empty).
    ai_keywords: Mapped[list[str]] = mapped_column(JSON)
    # When the paper was submitted to the daily page, and when arXiv first published it.
    submitted_on_daily_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    published_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    fetched_at: Mapped[datetime] = mapped_column(UTCDateTime)


class AnnouncementEntry(Base):
    """A paper in arXiv's listing of a category on an announcement day, as a feed said.

    Rows are only ever added, so a later, smaller (stale or truncated) feed never shrinks a
    day's listing. ``announce_type``: ``new`` | ``cross`` (the paper is announced that day) or
    ``replace`` | ``replace-cross`` (a new version of an older paper).
    """

    __tablename__ = "announcement_entries"

    announced_on: Mapped[date] = mapped_column(primary_key=True)
    category: Mapped[str] = mapped_column(String(40), primary_key=True)
    arxiv_id: Mapped[str] = mapped_column(String(40), primary_key=True, index=True)
    announce_type: Mapped[str] = mapped_column(String(16))


class FeedState(Base):
    """Validators of the last response of a feed URL, for conditional GET (ETag/Last-Modified)."""

    __tablename__ = "feed_states"

    url: Mapped[str] = mapped_column(String(500), primary_key=True)
    etag: Mapped[str | None] = mapped_column(Text)
    last_modified: Mapped[str | None] = mapped_column(Text)
    fetched_at: Mapped[datetime] = mapped_column(UTCDateTime)


class RequestGate(Base):
    """The politeness gate shared by every process on this database (see ``ingest.gate``).

    Times are Unix epoch seconds: ``held_until`` is the lease of the request in flight (0 when
    none), ``next_request_at`` the earliest time the next request may start.
    """

    __tablename__ = "request_gates"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    held_until: Mapped[float]
    next_request_at: Mapped[float]
    holder: Mapped[str | None] = mapped_column(String(80))


# --- Ranking pipeline (issue 4): embeddings, topics, editions. Migration 0003. ---


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


class Topic(Base):
    """A topic with a stable identity: the same id while its centroid stays close day to day."""

    __tablename__ = "topics"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    model: Mapped[str] = mapped_column(String(200))
    first_seen_on: Mapped[date] = mapped_column(index=True)


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
    status: Mapped[str] = mapped_column(String(16))
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


class Edition(Base):
    """A published ranked list for a period (day, week, month) and date, in a version.

    Downstream keys on (period, edition_date); a later version is a refresh of the same edition.
    """

    __tablename__ = "editions"
    __table_args__ = (UniqueConstraint("period", "edition_date", "version"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    period: Mapped[str] = mapped_column(String(8))
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


# --- Subscriptions and digest (issue 7): subscribers, tokens, votes, ledger. Migration 0005. ---


class Subscriber(Base):
    """A person who asked for the digest, and what they asked for.

    ``status``: ``pending`` (not confirmed; nothing but the confirmation is ever sent),
    ``active``, ``paused`` (by themselves, or after repeated permanent delivery failures) or
    ``unsubscribed`` (kept so an unsubscribe link of an old mail keeps answering).
    """

    __tablename__ = "subscribers"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    status: Mapped[str] = mapped_column(String(16), index=True)
    # Lists as JSON: categories, followed/muted topic ids and author keys.
    categories: Mapped[list[str]] = mapped_column(JSON)
    interests: Mapped[str] = mapped_column(Text, default="")
    exclusions: Mapped[str] = mapped_column(Text, default="")
    followed_topics: Mapped[list[int]] = mapped_column(JSON)
    muted_topics: Mapped[list[int]] = mapped_column(JSON)
    followed_authors: Mapped[list[str]] = mapped_column(JSON)
    muted_authors: Mapped[list[str]] = mapped_column(JSON)
    frequency: Mapped[str] = mapped_column(String(8))
    # Monday is 0, as ``date.weekday()``; read for the weekly digest only.
    weekday: Mapped[int]
    delivery_hour: Mapped[int]
    time_zone: Mapped[str] = mapped_column(String(64))
    max_items: Mapped[int]
    send_empty: Mapped[bool] = mapped_column(default=False, server_default=false())
    # Permanent delivery failures in a row; reaching the limit pauses the subscriber.
    failure_count: Mapped[int] = mapped_column(default=0)
    last_failure: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    confirmed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    unsubscribed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class UsedToken(Base):
    """A single-use token (confirmation, sign-in) that was spent: it is refused from then on."""

    __tablename__ = "used_tokens"

    token_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    purpose: Mapped[str] = mapped_column(String(16))
    used_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


class SubscribeAttempt(Base):
    """One subscribe request, counted per key (``email:...`` or ``client:...``) to rate-limit."""

    __tablename__ = "subscribe_attempts"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(400), index=True)
    attempted_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Delivery(Base):
    """The ledger: one digest for a subscriber and an edition (period, date), whatever version.

    ``status``: ``pending`` (claimed for this run, not sent), ``sent``, ``failed`` (permanent
    error) or ``skipped`` (nothing to send and the subscriber wants no empty digest).
    """

    __tablename__ = "deliveries"
    __table_args__ = (UniqueConstraint("subscriber_id", "period", "edition_date"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), index=True
    )
    period: Mapped[str] = mapped_column(String(8))
    edition_date: Mapped[date]
    status: Mapped[str] = mapped_column(String(16), index=True)
    attempts: Mapped[int] = mapped_column(default=0)
    error: Mapped[str | None] = mapped_column(Text)
    message_id: Mapped[str | None] = mapped_column(String(200))
    item_count: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class DigestFeedback(Base):
    """A subscriber's thumbs up (+1) or down (-1) on a paper from a digest; the latest counts."""

    __tablename__ = "digest_feedback"

    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), primary_key=True
    )
    arxiv_id: Mapped[str] = mapped_column(
        ForeignKey("papers.arxiv_id", ondelete="CASCADE"), primary_key=True
    )
    value: Mapped[int]
    given_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Vote(Base):
    """An upvote by a signed-in person (an email address) on a paper, once per paper.

    Counted per paper and ``voted_on`` day for the ranker.
    """

    __tablename__ = "votes"

    voter: Mapped[str] = mapped_column(String(320), primary_key=True)
    arxiv_id: Mapped[str] = mapped_column(
        ForeignKey("papers.arxiv_id", ondelete="CASCADE"), primary_key=True, index=True
    )
    voted_on: Mapped[date] = mapped_column(index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class PhraseEmbedding(Base):
    """A subscriber's interest or exclusion phrase embedded once per model (by text hash)."""

    __tablename__ = "phrase_embeddings"

    model: Mapped[str] = mapped_column(String(200), primary_key=True)
    text_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    vector: Mapped[bytes] = mapped_column(LargeBinary)


# --- Web front end (issue 6): what pages and search need stored. Migration 0006. ---


# --- Scheduler and operations (issue 8): job runs, the lease, incidents. Migration 0007. ---


class JobRun(Base):
    """One run of a scheduled job (by the scheduler or ``paperboy jobs run``).

    ``status`` is ``running`` until it ends, then ``ok``, ``warning`` (it finished with a
    partial or stale source) or ``failed``; ``summary`` holds the lines the job printed.
    """

    __tablename__ = "job_runs"

    id: Mapped[int] = mapped_column(primary_key=True)
    job: Mapped[str] = mapped_column(String(40), index=True)
    run_for: Mapped[date | None]
    trigger: Mapped[str] = mapped_column(String(20))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    status: Mapped[str] = mapped_column(String(20))
    exit_code: Mapped[int | None]
    summary: Mapped[str | None] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(Text)


class SchedulerLease(Base):
    """Who may run jobs: one row per lease, held by ``owner`` until ``expires_at``."""

    __tablename__ = "scheduler_leases"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    owner: Mapped[str] = mapped_column(String(200))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Incident(Base):
    """Something the operator must hear of (a failed job), open until a run of it succeeds.

    ``alerted_at`` is set when the admin was mailed, so an incident is mailed once however
    often the job fails again before it is repaired.
    """

    __tablename__ = "incidents"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(80), index=True)
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    alerted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    failures: Mapped[int] = mapped_column(default=1)
    last_error: Mapped[str | None] = mapped_column(Text)
