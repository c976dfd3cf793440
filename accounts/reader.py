"""What a signed-in reader keeps on the site: saves, thumbs, follows, mutes, a claimed page and
a private feed, all on their subscriber row (one person, one row, by mailbox).

A reader who never subscribed gets a row the first time they act, in the status ``web``: it
is never mailed (the digest run takes ``active`` rows only) and subscribing later turns it
into a pending subscription that keeps what the reader did (:func:`keeping_follows`).

Claiming an author page ("This is me") likes every work under that author key and follows
the author's topics. Author keys are names: a claim of a name covers every paper written under
it, a namesake's too; a claim of one of its people (``people``) covers that person's papers.
The reader thumbs a namesake's paper down, which the selection reads as "less like this", and
a thumbs-down is never overwritten by a claim. Unclaiming takes back the claim's
likes on the author's works (thumbs-downs stay) and leaves the topics followed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from enum import StrEnum
from typing import TypeVar

from sqlalchemy import Select, delete, select
from sqlalchemy.orm import Session

from accounts.preferences import Preferences
from accounts.votes import UnknownPaperError
from app.core import tokens
from app.core.models import (
    DigestFeedback,
    Frequency,
    Paper,
    PaperAuthor,
    PaperPerson,
    PaperTopic,
    Person,
    SavedPaper,
    Subscriber,
    SubscriberStatus,
)
from app.core.models.subscriptions import new_link_key

FEED = "feed"
T = TypeVar("T")
# A claim follows at most this many of the author's topics, the most frequent first.
CLAIM_TOPICS = 10
# The digest's defaults, for a row that is never mailed until the reader subscribes.
WEB_DEFAULTS = {
    "categories": [],
    "interests": "",
    "exclusions": "",
    "followed_topics": [],
    "muted_topics": [],
    "followed_authors": [],
    "muted_authors": [],
    "followed_people": [],
    "followed_organizations": [],
    "frequency": Frequency.DAILY,
    "weekday": 0,
    "delivery_hour": 7,
    "time_zone": "UTC",
    "max_items": 10,
}


class Stance(StrEnum):
    """Where a reader stands on a topic or an author: following, muting, or neither."""

    FOLLOW = "follow"
    MUTE = "mute"
    NEITHER = "neither"


def find(session: Session, email_key: str) -> Subscriber | None:
    return session.scalars(select(Subscriber).where(Subscriber.email_key == email_key)).first()


def reader_row(session: Session, email_key: str, now: datetime) -> Subscriber:
    """The reader's subscriber row, made in the status ``web`` on their first action."""
    found = find(session, email_key)
    if found is None:
        found = Subscriber(
            email=email_key,
            email_key=email_key,
            link_key=new_link_key(),
            status=SubscriberStatus.WEB,
            created_at=now,
            **WEB_DEFAULTS,
        )
        session.add(found)
        session.flush()
    return found


def keeping_follows(subscriber: Subscriber, preferences: Preferences) -> Preferences:
    """A web reader's subscription: the form's lists joined to what they followed and muted."""
    return replace(
        preferences,
        followed_topics=_joined(subscriber.followed_topics, preferences.followed_topics),
        muted_topics=_joined(subscriber.muted_topics, preferences.muted_topics),
        followed_authors=_joined(subscriber.followed_authors, preferences.followed_authors),
        muted_authors=_joined(subscriber.muted_authors, preferences.muted_authors),
    )


def _joined(kept: Sequence[T], asked: Sequence[T]) -> list[T]:
    return list(dict.fromkeys([*kept, *asked]))


def _known_paper(session: Session, arxiv_id: str) -> None:
    if session.get(Paper, arxiv_id) is None:
        raise UnknownPaperError(arxiv_id)


def save(session: Session, subscriber: Subscriber, arxiv_id: str, now: datetime) -> None:
    """Put a paper on the reading list (again: nothing changes). Saving a paper the reader said
    they are not interested in takes that back: the saved paper shows again as it was."""
    _known_paper(session, arxiv_id)
    if session.get(SavedPaper, (subscriber.id, arxiv_id)) is None:
        session.add(SavedPaper(subscriber_id=subscriber.id, arxiv_id=arxiv_id, saved_at=now))
        session.flush()
    feedback = session.get(DigestFeedback, (subscriber.id, arxiv_id))
    if feedback is not None and feedback.hidden:
        feedback.hidden = False


def unsave(session: Session, subscriber: Subscriber, arxiv_id: str) -> None:
    session.execute(
        delete(SavedPaper).where(
            SavedPaper.subscriber_id == subscriber.id, SavedPaper.arxiv_id == arxiv_id
        )
    )


def saved_rows(session: Session, subscriber_id: int) -> list[SavedPaper]:
    """The reading list: the reader's saved papers but those they said they are not interested
    in, newest save first."""
    hidden = select(DigestFeedback.arxiv_id).where(
        DigestFeedback.subscriber_id == subscriber_id, DigestFeedback.hidden.is_(True)
    )
    return list(
        session.scalars(_saved_query(subscriber_id).where(SavedPaper.arxiv_id.not_in(hidden)))
    )


def on_reading_list(session: Session, subscriber_id: int, arxiv_id: str) -> bool:
    """Whether the paper is saved and not hidden as "not interested"."""
    if session.get(SavedPaper, (subscriber_id, arxiv_id)) is None:
        return False
    feedback = session.get(DigestFeedback, (subscriber_id, arxiv_id))
    return feedback is None or not feedback.hidden


def every_saved_row(session: Session, subscriber_id: int) -> list[SavedPaper]:
    """Every saved paper of the reader's, hidden ones included, newest save first."""
    return list(session.scalars(_saved_query(subscriber_id)))


def _saved_query(subscriber_id: int) -> Select[SavedPaper]:
    return (
        select(SavedPaper)
        .where(SavedPaper.subscriber_id == subscriber_id)
        .order_by(SavedPaper.saved_at.desc(), SavedPaper.arxiv_id)
    )


def saved_ids(session: Session, subscriber_id: int) -> list[str]:
    """The reading list's papers, newest save first."""
    return [row.arxiv_id for row in saved_rows(session, subscriber_id)]


def give_feedback(
    session: Session, subscriber: Subscriber, arxiv_id: str, value: int, now: datetime
) -> None:
    """A thumbs up (1) or down (-1), or 0 to take it back; the digest's own store."""
    _known_paper(session, arxiv_id)
    if value == 0:
        session.execute(
            delete(DigestFeedback).where(
                DigestFeedback.subscriber_id == subscriber.id, DigestFeedback.arxiv_id == arxiv_id
            )
        )
    else:
        put_feedback(session, subscriber.id, arxiv_id, value, now)


def put_feedback(
    session: Session, subscriber_id: int, arxiv_id: str, value: int, now: datetime
) -> None:
    """Store a thumbs up or down; the latest one counts (a digest's link or the site's)."""
    row = session.get(DigestFeedback, (subscriber_id, arxiv_id))
    if row is None:
        row = DigestFeedback(subscriber_id=subscriber_id, arxiv_id=arxiv_id, given_at=now)
        session.add(row)
    # A thumbs given again takes back an earlier "not interested" (accounts.library).
    row.value, row.given_at, row.hidden = value, now, False
    session.flush()


def feedback_of(session: Session, subscriber_id: int) -> dict[str, int]:
    rows = session.execute(
        select(DigestFeedback.arxiv_id, DigestFeedback.value).where(
            DigestFeedback.subscriber_id == subscriber_id
        )
    )
    return {arxiv_id: int(value) for arxiv_id, value in rows}


def set_topic(subscriber: Subscriber, topic_id: int, stance: Stance) -> None:
    """Follow, mute or neither: following a topic unmutes it, and the other way round."""
    subscriber.followed_topics, subscriber.muted_topics = _placed(
        subscriber.followed_topics, subscriber.muted_topics, topic_id, stance
    )


def set_author(subscriber: Subscriber, key: str, stance: Stance) -> None:
    subscriber.followed_authors, subscriber.muted_authors = _placed(
        subscriber.followed_authors, subscriber.muted_authors, key, stance
    )


def leave_people_of(session: Session, subscriber: Subscriber, author_key: str) -> None:
    """Unfollowing or muting a name stops following each of its people too."""
    people = set(session.scalars(select(Person.id).where(Person.author_key == author_key)))
    subscriber.followed_people = [p for p in subscriber.followed_people if p not in people]


def set_person(subscriber: Subscriber, person: int, *, follow: bool) -> None:
    """Follow one person of a name, or stop; a follow of the name itself is left as it is."""
    others = [one for one in subscriber.followed_people if one != person]
    subscriber.followed_people = [*others, person] if follow else others


def set_organization(subscriber: Subscriber, slug: str, *, follow: bool) -> None:
    """Follow a Hugging Face organization by its slug, or stop (again: nothing changes)."""
    others = [one for one in subscriber.followed_organizations if one != slug]
    subscriber.followed_organizations = [*others, slug] if follow else others


def _placed(
    followed: Sequence[T], muted: Sequence[T], item: T, stance: Stance
) -> tuple[list[T], list[T]]:
    """New lists (the ORM sees a JSON column change only when given a new value)."""
    follows = [x for x in followed if x != item] + ([item] if stance is Stance.FOLLOW else [])
    mutes = [x for x in muted if x != item] + ([item] if stance is Stance.MUTE else [])
    return follows, mutes


def claim(
    session: Session,
    subscriber: Subscriber,
    author_key: str,
    now: datetime,
    person: int | None = None,
) -> None:
    """Claim the page ("This is me"): the works liked (a thumbs-down stays), their topics
    followed. A person's page claims that person's works; a name's page, all of the name's."""
    works = _works(session, author_key, person)
    given = feedback_of(session, subscriber.id)
    for arxiv_id in works:
        if arxiv_id not in given:
            put_feedback(session, subscriber.id, arxiv_id, 1, now)
    topics = _topics(session, works)
    subscriber.followed_topics = _joined(subscriber.followed_topics, topics)
    subscriber.muted_topics = [t for t in subscriber.muted_topics if t not in topics]
    subscriber.claimed_author = author_key
    subscriber.claimed_person = person
    session.flush()


def unclaim(session: Session, subscriber: Subscriber) -> None:
    """Take the claim back: its likes of the works go; thumbs-downs and topics stay (a
    person's claim is let go through :func:`accounts.person_claims.let_go`)."""
    if subscriber.claimed_author is None:
        return
    works = _works(session, subscriber.claimed_author, subscriber.claimed_person)
    session.execute(
        delete(DigestFeedback).where(
            DigestFeedback.subscriber_id == subscriber.id,
            DigestFeedback.value > 0,
            DigestFeedback.arxiv_id.in_(works),
        )
    )
    subscriber.claimed_author = None
    subscriber.claimed_person = None


def _works(session: Session, author_key: str, person: int | None = None) -> list[str]:
    if person is not None:
        mine = select(PaperPerson.arxiv_id).where(PaperPerson.person_id == person)
        listed = select(PaperAuthor.arxiv_id).where(PaperAuthor.author_key == author_key)
        return list(session.scalars(mine.where(PaperPerson.arxiv_id.in_(listed))))
    return list(
        session.scalars(
            select(PaperAuthor.arxiv_id).where(PaperAuthor.author_key == author_key).distinct()
        )
    )


def _topics(session: Session, works: list[str]) -> list[int]:
    counts: dict[int, int] = {}
    for topic_id in session.scalars(
        select(PaperTopic.topic_id).where(PaperTopic.arxiv_id.in_(works))
    ):
        counts[topic_id] = counts.get(topic_id, 0) + 1
    return sorted(counts, key=lambda topic: (-counts[topic], topic))[:CLAIM_TOPICS]


def feed_token(secret: str, subscriber: Subscriber, now: datetime) -> str:
    """The private feed's token, drawing the reader's feed key on first use."""
    if subscriber.feed_key is None:
        subscriber.feed_key = new_link_key()
    return tokens.issue(secret, FEED, str(subscriber.id), now, key=subscriber.feed_key)


def feed_reader(session: Session, secret: str, token: str, now: datetime) -> Subscriber:
    """Whose private feed a token opens; :class:`TokenError` once revoked or forged."""
    claims = tokens.verify(secret, token, FEED, now, None)
    found = session.get(Subscriber, int(claims.subject)) if claims.subject.isdigit() else None
    if found is None or found.feed_key is None:
        raise tokens.TokenError("revoked")
    if not tokens.same_text(claims.extra.get("key", ""), found.feed_key):
        raise tokens.TokenError("revoked")
    return found


def revoke_feed(subscriber: Subscriber) -> None:
    """Every feed URL given so far stops working; the next one asked for carries a new key."""
    subscriber.feed_key = new_link_key()
