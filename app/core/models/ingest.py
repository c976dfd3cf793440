"""What live ingest stores: community signals, listings, feed validators, the request gate."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    JSON,
    LargeBinary,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models.base import Base, UTCDateTime


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
    # The paper's own page (an http(s) URL), the HF username who submitted it to the daily
    # page, and the HF organization it was submitted under: its unique slug
    # ("ByteDance-Seed") and its display name ("ByteDance Seed"). The flattened records give
    # the display name only.
    project_page: Mapped[str | None] = mapped_column(Text)
    submitted_by: Mapped[str | None] = mapped_column(String(200))
    organization_name: Mapped[str | None] = mapped_column(String(200))
    organization_fullname: Mapped[str | None] = mapped_column(Text)
    # The paper's authors as Hugging Face lists them (a JSON list of names; null on rows stored
    # before they were kept): featured papers outside Paperboy's categories have no other.
    authors: Mapped[list[str] | None] = mapped_column(JSON)
    # Hugging Face's one-sentence summary written by its model (``paper.ai_summary``): shown
    # only as Hugging Face's, never as Paperboy's. Its comment thread (``paper.discussionId``)
    # and its social card's address (``thumbnail``, where Paperboy fetched it from).
    ai_summary: Mapped[str | None] = mapped_column(Text)
    discussion_id: Mapped[str | None] = mapped_column(String(40))
    thumbnail_url: Mapped[str | None] = mapped_column(Text)


class HfThumbnail(Base):
    """A paper's Hugging Face thumbnail, fetched once at ingest, checked and made small.

    Kept in the database, not as a file: every web process on every host reads it where it
    reads the papers, and a backup of the database holds it. ``digest`` (SHA-256 of ``image``)
    names its URL, so the URL changes whenever the image does and may be cached for good.
    """

    __tablename__ = "hf_thumbnails"

    arxiv_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    # The address it was fetched from: the same address is never fetched again.
    source_url: Mapped[str] = mapped_column(Text)
    digest: Mapped[str] = mapped_column(String(64), index=True)
    image: Mapped[bytes] = mapped_column(LargeBinary)  # WebP, THUMBNAIL_SIZE
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
    """The politeness gate shared by every process on this database (see ``ingest.http.Gate``).

    Times are Unix epoch seconds: ``held_until`` is the lease of the request in flight (0 when
    none), ``next_request_at`` the earliest time the next request may start.
    """

    __tablename__ = "request_gates"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    held_until: Mapped[float]
    next_request_at: Mapped[float]
    holder: Mapped[str | None] = mapped_column(String(80))
