"""What the subscription forms offer by name, and what the names readers type stand for (reads).

Readers choose topics by label and authors by name; the forms suggest the topics of the last
two weeks and the authors of the newest day edition, and the names a reader types are looked
up here before :func:`accounts.preferences.parse_preferences` checks them.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from accounts.preferences import Named, topic_name
from app.core.db import session_scope
from app.core.models import Author, EditionItem, PaperAuthor, Subscriber, Topic, TopicDay
from app.core.reads import latest_edition, topic_labels
from app.services.reports import Deployment

RECENT_TOPIC_DAYS = 14


@dataclass(frozen=True, slots=True)
class Suggestions:
    """Names a form suggests, sorted: recent topics' labels and today's authors' names."""

    topics: list[str] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class StoredNames:
    """What a subscriber's followed and muted topics and authors are called now."""

    topic_labels: dict[int, str]
    author_names: dict[str, str]


def form_suggestions(site: Deployment) -> Suggestions:
    with session_scope(site.sessions) as session:
        return Suggestions(_recent_topic_labels(session), _edition_author_names(session))


def stored_names(site: Deployment, subscriber: Subscriber) -> StoredNames:
    """The names the form shows for a subscriber's topics (latest label) and authors."""
    topics = [*subscriber.followed_topics, *subscriber.muted_topics]
    authors = [*subscriber.followed_authors, *subscriber.muted_authors]
    with session_scope(site.sessions) as session:
        return StoredNames(topic_labels(session, topics), author_names(session, authors))


def look_up(site: Deployment, named: Named, holder: Subscriber | None = None) -> Named:
    """``named`` with what the site knows of its names; a ``holder``'s own authors count as
    known, so that saving never refuses what is already stored."""
    found = named
    if named.asked_topics() or named.asked_authors():
        with session_scope(site.sessions) as session:
            found = known_names(session, named)
    if holder is None:
        return found
    own = {*holder.followed_authors, *holder.muted_authors}
    return replace(found, author_keys={*found.author_keys, *own})


def _recent_topic_labels(session: Session) -> list[str]:
    newest = session.scalar(select(func.max(TopicDay.day)))
    if newest is None:
        return []
    rows = session.execute(
        select(TopicDay.topic_id, TopicDay.label)
        .where(TopicDay.day > newest - timedelta(days=RECENT_TOPIC_DAYS))
        .order_by(TopicDay.day)
    )
    latest = {row.topic_id: row.label for row in rows}  # a later day's label wins
    return sorted(set(latest.values()), key=str.casefold)


def _edition_author_names(session: Session) -> list[str]:
    edition = latest_edition(session, "day", None)
    if edition is None:
        return []
    names = session.scalars(
        select(Author.name)
        .join(PaperAuthor, PaperAuthor.author_key == Author.key)
        .join(EditionItem, EditionItem.arxiv_id == PaperAuthor.arxiv_id)
        .where(EditionItem.edition_id == edition.id)
        .distinct()
    )
    return sorted(names, key=str.casefold)


def author_names(session: Session, keys: Collection[str]) -> dict[str, str]:
    if not keys:
        return {}
    rows = session.execute(select(Author.key, Author.name).where(Author.key.in_(list(keys))))
    return {row.key: row.name for row in rows}


def known_names(session: Session, named: Named) -> Named:
    """``named`` with the topics and authors it asks for that the site knows."""
    asked, authors = named.asked_topics(), named.asked_authors()
    found: set[str] = set()
    if authors:
        found.update(session.scalars(select(Author.key).where(Author.key.in_(list(authors)))))
    return replace(named, topic_ids=_topic_ids(session, asked), author_keys=frozenset(found))


def _topic_ids(session: Session, asked: set[str]) -> dict[str, int]:
    """Asked :func:`topic_name` -> topic: by number, or by any label it had (the latest wins).

    Labels are matched by SQL ``lower()``, then exactly: keyphrases of abstracts, nearly all
    ASCII, where ``lower()`` and ``casefold()`` agree.
    """
    numbers = [int(name[1:]) for name in asked if name.startswith("#")]
    ids: dict[str, int] = {}
    if numbers:
        found = session.scalars(select(Topic.id).where(Topic.id.in_(numbers)))
        ids.update((f"#{topic}", topic) for topic in found)
    labels = [name for name in asked if not name.startswith("#")]
    if not labels:
        return ids
    rows = session.execute(
        select(TopicDay.topic_id, TopicDay.label)
        .where(func.lower(TopicDay.label).in_(labels))
        .order_by(TopicDay.day, TopicDay.topic_id)
    )
    for row in rows:
        ids[topic_name(row.label)] = row.topic_id  # a later day's topic wins a shared label
    return ids
