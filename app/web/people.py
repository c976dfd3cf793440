"""The people behind a name, as its pages show them (reads only).

A name's page lists its people when there are several, each with what tells them apart: how
many papers, their main topic, their closest co-authors. A person's page is the name's page
narrowed to that person's papers (:func:`app.web.profiles.author_page`).

How many readers follow a person, a name or a topic, and whether a page is claimed: counts
only, never who.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlalchemy import ColumnElement, func, select, true
from sqlalchemy.orm import InstrumentedAttribute, Session, aliased

from app.core.models import (
    PaperAuthor,
    PaperPerson,
    PaperTopic,
    Person,
    Subscriber,
    SubscriberStatus,
)
from app.core.reads import topic_labels
from app.services.claims import claimant, hidden_condition
from app.web.view_models import key_phrases

COAUTHORS_NAMED = 2
# Readers who confirmed a mailbox (subscribed or signed in on the site); a pending or
# unsubscribed address follows nothing.
FOLLOWING = (SubscriberStatus.ACTIVE, SubscriberStatus.PAUSED, SubscriberStatus.WEB)


@dataclass(frozen=True)
class PersonSummary:
    """One person of a name, as the name's page introduces them."""

    id: int
    papers: int
    topic: str | None
    coauthors: list[str]


def within(column: InstrumentedAttribute[str], person: int | None) -> ColumnElement[bool]:
    """``column`` (a paper id) is one of the person's papers; anything when ``person`` is None."""
    if person is None:
        return true()
    return column.in_(select(PaperPerson.arxiv_id).where(PaperPerson.person_id == person, listed()))


def listed() -> ColumnElement[bool]:
    """The paper still lists the name: a replaced author list leaves its old rows until the
    old name is split again."""
    return (
        select(PaperAuthor.arxiv_id)
        .where(
            PaperAuthor.arxiv_id == PaperPerson.arxiv_id,
            PaperAuthor.author_key == PaperPerson.author_key,
        )
        .exists()
    )


def people_of_name(session: Session, key: str) -> list[PersonSummary]:
    """The name's people shown to readers (not moved, not hidden), most papers first; told
    apart by topic and co-authors only when there are several to tell apart."""
    counts = session.execute(
        select(PaperPerson.person_id, func.count())
        .join(Person, Person.id == PaperPerson.person_id)
        .where(PaperPerson.author_key == key, Person.moved_to.is_(None), ~hidden_condition())
        .where(listed())
        .group_by(PaperPerson.person_id)
    ).all()
    ranked = sorted(counts, key=lambda row: (-row[1], row[0]))
    if len(ranked) < 2:
        return [
            PersonSummary(id=person, papers=papers, topic=None, coauthors=[])
            for person, papers in ranked
        ]
    return [
        PersonSummary(
            id=person,
            papers=papers,
            topic=_main_topic(session, person),
            coauthors=_closest(session, key, person),
        )
        for person, papers in ranked
    ]


def _main_topic(session: Session, person: int) -> str | None:
    topics = Counter(
        session.scalars(select(PaperTopic.topic_id).where(within(PaperTopic.arxiv_id, person)))
    )
    if not topics:
        return None
    top = topics.most_common(1)[0][0]
    label = topic_labels(session, [top]).get(top)
    phrases = key_phrases(label) if label else []
    return phrases[0] if phrases else label


def _closest(session: Session, key: str, person: int) -> list[str]:
    theirs = aliased(PaperAuthor)
    rows = session.execute(
        select(func.min(theirs.name), func.count(func.distinct(theirs.arxiv_id)))
        .where(theirs.author_key != key, within(theirs.arxiv_id, person))
        .group_by(theirs.author_key)
        .order_by(func.count(func.distinct(theirs.arxiv_id)).desc(), func.min(theirs.name))
        .limit(COAUTHORS_NAMED)
    )
    return [name for name, _ in rows]


def person_followers(session: Session, person: int) -> int:
    """How many readers follow this person (a count only: who follows stays private)."""
    lists = session.scalars(
        select(Subscriber.followed_people).where(Subscriber.status.in_(FOLLOWING))
    )
    return sum(person in (followed or ()) for followed in lists)


def person_claimed(session: Session, person: int) -> bool:
    """Whether the person's claim is verified (by arXiv, or a moderator): an unverified claim
    shows nowhere but to its reader, since anyone signed in may make one."""
    return claimant(session, person) is not None


def topic_followers(session: Session, topic_id: int) -> int:
    """How many readers follow the topic (their lists are JSON: counted here, not in SQL)."""
    lists = session.scalars(
        select(Subscriber.followed_topics).where(Subscriber.status.in_(FOLLOWING))
    )
    return sum(topic_id in (followed or ()) for followed in lists)


def author_followers(session: Session, key: str) -> int:
    """How many readers follow the author key."""
    lists = session.scalars(
        select(Subscriber.followed_authors).where(Subscriber.status.in_(FOLLOWING))
    )
    return sum(key in (followed or ()) for followed in lists)


def author_claimed(session: Session, key: str) -> bool:
    """Whether one of the name's people has a verified claimant (a claim of the name itself
    is never verified: it is every namesake's)."""
    claims = session.scalar(
        select(func.count())
        .select_from(Subscriber)
        .where(Subscriber.claimed_author == key, Subscriber.claim_verified_at.is_not(None))
    )
    return bool(claims)
