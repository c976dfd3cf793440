"""Subscribers, their tokens, feedback and votes, and the delivery ledger of the digest."""

from __future__ import annotations

import secrets
from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import (
    JSON,
    ForeignKey,
    Index,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
    true,
)
from sqlalchemy.engine.default import DefaultExecutionContext
from sqlalchemy.orm import Mapped, mapped_column

from app.core.models.base import Base, StoredState, UTCDateTime
from app.core.periods import Period


def mailbox_key(address: str) -> str:
    """One key per mailbox: ``Bob@example.org`` and ``bob@example.org`` are one reader.

    Local parts are ASCII (``accounts.addresses``), where lower-casing is what every mail
    provider in practice does."""
    return address.lower()


def new_link_key() -> str:
    return secrets.token_hex(16)


def _email_key_of_row(context: DefaultExecutionContext) -> str:
    return mailbox_key(str(context.get_current_parameters()["email"]))  # type: ignore[no-untyped-call]


class SubscriberStatus(StrEnum):
    """Where a subscriber stands; only an ``ACTIVE`` one is ever sent a digest."""

    # Not confirmed: nothing but the confirmation is ever sent.
    PENDING = "pending"
    ACTIVE = "active"
    # By themselves, or after repeated permanent delivery failures.
    PAUSED = "paused"
    # Kept so an unsubscribe link of an old mail keeps answering.
    UNSUBSCRIBED = "unsubscribed"
    # A signed-in reader of the site who never subscribed: their saves, thumbs and follows,
    # never a mail. Subscribing turns the row into a pending subscription, data kept.
    WEB = "web"


class Frequency(StrEnum):
    """How often a subscriber gets the digest: each day's edition, or the week's."""

    DAILY = "daily"
    WEEKLY = "weekly"


class Subscriber(Base):
    """A person who asked for the digest, and what they asked for (``status``: see
    :class:`SubscriberStatus`).

    ``email`` is the address as typed (the domain lower-cased), used to deliver; ``email_key``
    is the mailbox (the whole address lower-cased), unique, so ``Bob@`` and ``bob@`` are one
    subscriber. Every signed link carries ``link_key``, a random value that dies with the row
    and is renewed when an unsubscribed address subscribes again: a link never acts on a later
    subscriber, even one given the same id (ids are never reused either: AUTOINCREMENT).
    """

    __tablename__ = "subscribers"
    __table_args__ = (
        Index(
            "ix_subscribers_verified_claim",
            "claimed_person",
            unique=True,
            sqlite_where=text("claim_verified_at IS NOT NULL"),
            postgresql_where=text("claim_verified_at IS NOT NULL"),
        ),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    email: Mapped[str] = mapped_column(String(320))
    email_key: Mapped[str] = mapped_column(String(320), unique=True, default=_email_key_of_row)
    link_key: Mapped[str] = mapped_column(String(32), default=new_link_key)
    status: Mapped[SubscriberStatus] = mapped_column(StoredState(SubscriberStatus, 16), index=True)
    # Lists as JSON: categories, followed/muted topic ids and author keys.
    categories: Mapped[list[str]] = mapped_column(JSON)
    interests: Mapped[str] = mapped_column(Text, default="")
    exclusions: Mapped[str] = mapped_column(Text, default="")
    followed_topics: Mapped[list[int]] = mapped_column(JSON)
    muted_topics: Mapped[list[int]] = mapped_column(JSON)
    followed_authors: Mapped[list[str]] = mapped_column(JSON)
    muted_authors: Mapped[list[str]] = mapped_column(JSON)
    frequency: Mapped[Frequency] = mapped_column(StoredState(Frequency, 8))
    # Monday is 0, as ``date.weekday()``; read for the weekly digest only.
    weekday: Mapped[int]
    delivery_hour: Mapped[int]
    time_zone: Mapped[str] = mapped_column(String(64))
    max_items: Mapped[int]
    send_empty: Mapped[bool] = mapped_column(default=False, server_default=false())
    # "I was away since": the next day digest is a catch-up from this day (digest.catch_up).
    away_since: Mapped[date | None]
    # Permanent delivery failures in a row; reaching the limit pauses the subscriber.
    failure_count: Mapped[int] = mapped_column(default=0)
    last_failure: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The first confirmation: a later one (after unsubscribing) leaves it, since votes are
    # weighed by when the mailbox was first proven (ranking.vote_weights).
    confirmed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    unsubscribed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # People followed by id (``people``): a follow of a name above takes all its people.
    followed_people: Mapped[list[int]] = mapped_column(JSON, default=list, server_default="[]")
    # Hugging Face organizations followed, by slug ("ByteDance-Seed"): a digest section.
    followed_organizations: Mapped[list[str]] = mapped_column(
        JSON, default=list, server_default="[]"
    )
    # The author page the reader said is theirs ("This is me"), by author key.
    claimed_author: Mapped[str | None] = mapped_column(String(200))
    # The person of that name the reader said they are: pages split a name into people. Any
    # number may claim a person; one verified claimant at most (the partial unique index).
    claimed_person: Mapped[int | None] = mapped_column(
        ForeignKey("people.id", ondelete="SET NULL"), index=True
    )
    # The ORCID iD the reader proved by signing in with ORCID.
    orcid: Mapped[str | None] = mapped_column(String(19), unique=True)
    # When the claim was verified, and by what: "arxiv:<orcid>" (arXiv lists the iD's papers
    # among the person's) or "moderator:<address>". Unverified claims change nothing public.
    claim_verified_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    claim_verified_by: Mapped[str | None] = mapped_column(String(340))
    # The private feed's token carries it; revoking the feed draws a new one.
    feed_key: Mapped[str | None] = mapped_column(String(32))
    # Mail when someone replies to the reader's comment (``accounts.comment_mail``).
    reply_mail: Mapped[bool] = mapped_column(default=True, server_default=true())
    # A verified author's mail about new comments on their papers, for comments from then on.
    paper_comment_mail_since: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The digest lists the papers that got new comments in its day or week (``digest.tastes``).
    discussed_in_digest: Mapped[bool] = mapped_column(default=False, server_default=false())


class SignInKey(Base):
    """The key every sign-in link and session cookie of an address carries.

    Made when the address first asks for a sign-in link; deleting the address's data deletes
    it, which signs that address out everywhere and voids every sign-in link already mailed.
    Anyone can ask a link for any address, so the key proves nothing; ``signed_in_at``, set
    when a link is first opened, says the mailbox's owner signed in.
    """

    __tablename__ = "sign_in_keys"

    email_key: Mapped[str] = mapped_column(String(320), primary_key=True)
    key: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    signed_in_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class UsedToken(Base):
    """A single-use token (confirmation, sign-in) that was spent: it is refused from then on."""

    __tablename__ = "used_tokens"

    token_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    purpose: Mapped[str] = mapped_column(String(16))
    used_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    # A sign-in link's: the SHA-256 (hex) of the CSRF nonce of the browser that spent it, the
    # only browser whose repeat moments later signs in too. A hash, so the table holds nothing
    # a browser's cookie could be made from.
    nonce_hash: Mapped[str | None] = mapped_column(String(64))


class SubscribeAttempt(Base):
    """One subscribe request, counted per key (``email:...`` or ``client:...``) to rate-limit."""

    __tablename__ = "subscribe_attempts"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(400), index=True)
    attempted_at: Mapped[datetime] = mapped_column(UTCDateTime)


class DeliveryStatus(StrEnum):
    """Where a delivery of the ledger stands (``digest.ledger`` moves it along)."""

    # Due, not sent yet; ``error`` says why when the recipient was refused for now.
    PENDING = "pending"
    # In flight since ``sending_since``: committed once the server took its envelope, so the
    # server may have the message; its answer not yet recorded. A run sends it again, with its
    # ``message_id``, once ``digest.ledger``'s lease is out.
    SENDING = "sending"
    SENT = "sent"
    # A permanent refusal, or an error of this delivery's own: ``error`` holds the answer, or
    # the error's type and message.
    FAILED = "failed"
    # Nothing to send, and the subscriber wants no empty digest.
    SKIPPED = "skipped"
    # A newer edition of its period came first: never sent.
    EXPIRED = "expired"


class Delivery(Base):
    """The ledger: one digest for a subscriber and an edition (period, date), whatever version
    (``status``: see :class:`DeliveryStatus`)."""

    __tablename__ = "deliveries"
    __table_args__ = (UniqueConstraint("subscriber_id", "period", "edition_date"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), index=True
    )
    period: Mapped[Period] = mapped_column(String(8))
    edition_date: Mapped[date]
    status: Mapped[DeliveryStatus] = mapped_column(StoredState(DeliveryStatus, 16), index=True)
    attempts: Mapped[int] = mapped_column(default=0)
    error: Mapped[str | None] = mapped_column(Text)
    # Chosen by the delivery's first try; every later try carries it.
    message_id: Mapped[str | None] = mapped_column(String(200))
    item_count: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    sending_since: Mapped[datetime | None] = mapped_column(UTCDateTime)
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
    # "Not interested": a thumbs down that also hides the paper from the reader's picks.
    hidden: Mapped[bool] = mapped_column(default=False, server_default=false())


class ReadingList(Base):
    """A reader's named list of saved papers; deleted with the reader (its papers stay saved)."""

    __tablename__ = "reading_lists"
    __table_args__ = (UniqueConstraint("subscriber_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SavedPaper(Base):
    """A paper on a reader's reading list, filed under one of their lists or none, read or
    not, with their private note; deleted with the reader."""

    __tablename__ = "saved_papers"

    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), primary_key=True
    )
    arxiv_id: Mapped[str] = mapped_column(
        ForeignKey("papers.arxiv_id", ondelete="CASCADE"), primary_key=True
    )
    saved_at: Mapped[datetime] = mapped_column(UTCDateTime)
    list_id: Mapped[int | None] = mapped_column(
        ForeignKey("reading_lists.id", ondelete="SET NULL"), index=True
    )
    read_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    note: Mapped[str | None] = mapped_column(Text)


class SavedSearch(Base):
    """A search a reader follows: what it finds in a day makes a section of their digest;
    deleted with the reader. ``category`` is empty for every category."""

    __tablename__ = "saved_searches"
    __table_args__ = (UniqueConstraint("subscriber_id", "query", "category"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), index=True
    )
    query: Mapped[str] = mapped_column(String(200))
    category: Mapped[str] = mapped_column(String(40), default="")
    saved_at: Mapped[datetime] = mapped_column(UTCDateTime)


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


class TokenScope(StrEnum):
    """What a personal access token may do: read the reader's own data, or change it too."""

    READ = "read"
    WRITE = "write"


class AccessToken(Base):
    """A personal access token a reader made for an assistant (the MCP server's own tools).

    Only ``digest``, the SHA-256 of the whole token, is stored: the token itself is shown once
    and cannot be read back. ``hint`` is its first characters, for the reader to recognise it.
    A revoked token keeps its row (``revoked_at``) so that its use is refused in words; the
    rows go with the reader."""

    __tablename__ = "access_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("subscribers.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(60))
    scope: Mapped[TokenScope] = mapped_column(StoredState(TokenScope, 8))
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    hint: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # When it last acted for the reader, to a minute (a token used each second is not
    # written each second).
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
