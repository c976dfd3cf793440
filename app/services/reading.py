"""What the signed-in reader's pages read, as use cases taking the request's session: who a
cookie signs in, a reader's "For you" facts (their row, marks, follows named, saved searches,
private feed's key), their reading list, a paper as they left it, the buttons' state, their
data export; and what the crowd made of papers (Hugging Face's page, votes here).

Reading never writes; the actions are in :mod:`app.services.readers` and
:mod:`app.services.library`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from accounts import threads
from accounts.library import MAX_LIST_NAME, MAX_NOTE, reader_lists
from accounts.reader import WEB_DEFAULTS, feed_token, feedback_of, on_reading_list, saved_ids
from accounts.reader import feed_reader as token_reader
from accounts.reader import find as find_reader
from accounts.reader import saved_rows as saved_papers
from accounts.saved_searches import MAX_SAVED, kept_as, saved_rows
from accounts.signin import voter
from accounts.votes import totals
from app.core.config import Settings
from app.core.models import Author, HfDailyPaper, Person, Subscriber, SubscriberStatus
from app.core.reads import topic_labels
from app.core.refusals import NotFound
from app.services.accounts import export_of

__all__ = ["MAX_LIST_NAME", "MAX_NOTE", "MAX_SAVED"]


class UnknownReadingListError(NotFound, LookupError):
    """A list id that is not one of the reader's (answered 404)."""


@dataclass(frozen=True)
class Marks:
    """What a reader did with papers: the ones they saved, their thumbs (1 up, -1 down)."""

    saved: frozenset[str] = frozenset()
    thumbs: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Follows:
    """What a reader follows and mutes, named as the pages name them."""

    followed_topics: list[tuple[int, str]] = field(default_factory=list)
    muted_topics: list[tuple[int, str]] = field(default_factory=list)
    followed_authors: list[tuple[str, str]] = field(default_factory=list)
    muted_authors: list[tuple[str, str]] = field(default_factory=list)
    followed_people: list[tuple[int, str]] = field(default_factory=list)
    # By slug, named as Hugging Face names them (the slug, once no paper of theirs is stored).
    followed_organizations: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FollowedSearch:
    id: int
    label: str
    query: str
    category: str  # empty: every category


@dataclass(frozen=True)
class ForYouReader:
    """A reader as their "For you" reads them."""

    reader: Subscriber  # their row, or one with the digest's defaults (not stored)
    feed_token: str | None  # the private feed's, once they asked for one
    subscribed: bool
    marks: Marks
    follows: Follows
    searches: list[FollowedSearch]


@dataclass(frozen=True)
class FeedReader:
    reader: Subscriber
    marks: Marks


@dataclass(frozen=True)
class FiledPaper:
    list_id: int | None
    read: bool
    note: str


@dataclass(frozen=True)
class ReadingListRows:
    """The papers of a reading list, newest first, as the reader filed them."""

    lists: list[tuple[int, str]]  # every list of the reader's (id, name)
    name: str  # the list shown
    papers: dict[str, FiledPaper]
    thumbs: dict[str, int]


def signed_in(session: Session, settings: Settings, cookie: str, now: datetime) -> str | None:
    """Who the session cookie signs in, or None."""
    return voter(session, settings, cookie, now) if cookie else None


def for_you_reader(
    session: Session, settings: Settings, email_key: str, now: datetime
) -> ForYouReader:
    found = find_reader(session, email_key) or _transient(email_key)
    token = None if found.feed_key is None else feed_token(settings.secret_key, found, now)
    return ForYouReader(
        reader=found,
        feed_token=token,
        subscribed=found.status not in (SubscriberStatus.WEB, SubscriberStatus.UNSUBSCRIBED),
        marks=_marks(session, found),
        follows=_follows(session, found),
        searches=_searches(session, found),
    )


def feed_reader(session: Session, settings: Settings, token: str, now: datetime) -> FeedReader:
    """The reader a private feed's token opens (:class:`TokenError` once revoked)."""
    found = token_reader(session, settings.secret_key, token, now)
    return FeedReader(found, _marks(session, found))


def reading_list_rows(session: Session, email_key: str, list_id: int | None) -> ReadingListRows:
    """The reader's saved papers: all of them, or those of list ``list_id``
    (:class:`UnknownReadingListError` when it is not theirs)."""
    found = find_reader(session, email_key)
    lists = reader_lists(session, found.id) if found else []
    names = dict(lists)
    if list_id is not None and list_id not in names:
        raise UnknownReadingListError("no such list of yours")
    rows = saved_papers(session, found.id) if found else []
    papers = {
        row.arxiv_id: FiledPaper(
            list_id=row.list_id, read=row.read_at is not None, note=row.note or ""
        )
        for row in rows
        if list_id is None or row.list_id == list_id
    }
    thumbs = feedback_of(session, found.id) if found else {}
    name = "Reading list" if list_id is None else names[list_id]
    return ReadingListRows(lists=lists, name=name, papers=papers, thumbs=thumbs)


def paper_marks(session: Session, email_key: str, arxiv_id: str) -> tuple[bool, int]:
    """Whether the reader saved the paper, and their thumb on it (0: none)."""
    found = find_reader(session, email_key)
    if found is None:
        return False, 0
    saved = on_reading_list(session, found.id, arxiv_id)
    return saved, feedback_of(session, found.id).get(arxiv_id, 0)


def buttons_state(session: Session, email_key: str) -> dict[str, object]:
    """What the reader did, for the script that marks shared pages' buttons."""
    found = find_reader(session, email_key)
    if found is None:
        return {"signed_in": True, "saved": [], "feedback": {}}
    return {
        "signed_in": True,
        "saved": saved_ids(session, found.id),
        "feedback": feedback_of(session, found.id),
        "followed_topics": found.followed_topics,
        "muted_topics": found.muted_topics,
        "followed_authors": found.followed_authors,
        "muted_authors": found.muted_authors,
        "claimed_author": found.claimed_author,
        "claimed_person": found.claimed_person,
        "followed_people": found.followed_people,
        "followed_organizations": found.followed_organizations,
    }


@dataclass(frozen=True)
class Stances:
    """Where a reader stands on what a page offers to follow: ``"follow"``, ``"mute"``, or
    ``""`` (neither), so the page shows the button that undoes it."""

    followed_topics: frozenset[int] = frozenset()
    muted_topics: frozenset[int] = frozenset()
    followed_authors: frozenset[str] = frozenset()
    muted_authors: frozenset[str] = frozenset()
    followed_people: frozenset[int] = frozenset()
    followed_organizations: frozenset[str] = frozenset()

    def on_topic(self, topic: int) -> str:
        return _stance(topic in self.followed_topics, topic in self.muted_topics)

    def on_author(self, key: str) -> str:
        return _stance(key in self.followed_authors, key in self.muted_authors)

    def on_person(self, person: int) -> str:
        return _stance(person in self.followed_people, muted=False)

    def on_organization(self, slug: str) -> str:
        return _stance(slug in self.followed_organizations, muted=False)


def _stance(followed: bool, muted: bool) -> str:
    return "follow" if followed else "mute" if muted else ""


def reader_stances(session: Session, email_key: str) -> Stances:
    """What the reader follows and mutes (nothing, for a reader not stored)."""
    found = find_reader(session, email_key)
    if found is None:
        return Stances()
    return Stances(
        followed_topics=frozenset(found.followed_topics),
        muted_topics=frozenset(found.muted_topics),
        followed_authors=frozenset(found.followed_authors),
        muted_authors=frozenset(found.muted_authors),
        followed_people=frozenset(found.followed_people),
        followed_organizations=frozenset(found.followed_organizations),
    )


def followed_search(session: Session, email_key: str, query: str, category: str) -> int | None:
    """The id of the reader's saved search that is this search, or None."""
    found = find_reader(session, email_key)
    return None if found is None or not found.id else kept_as(session, found.id, query, category)


def reader_export(session: Session, email_key: str) -> dict[str, object]:
    """Everything stored about the reader, as the subscription's data export gives it."""
    found = find_reader(session, email_key)
    return {"email_key": email_key} if found is None else export_of(session, found)


@dataclass(frozen=True)
class Community:
    """What the crowd made of a paper: its row of Hugging Face's daily page where it had the
    most upvotes (None: never there), and its votes on this site."""

    daily: HfDailyPaper | None = None
    votes: int = 0
    comments: int = 0  # in this site's discussion, that everyone sees


def community_of(session: Session, arxiv_ids: Sequence[str]) -> dict[str, Community]:
    """Each paper's community signals (Hugging Face's, votes and comments here), for the
    papers with any."""
    if not arxiv_ids:
        return {}
    rows = session.scalars(
        select(HfDailyPaper)
        .where(HfDailyPaper.arxiv_id.in_(list(arxiv_ids)))
        .order_by(HfDailyPaper.upvotes)
    )
    found = {row.arxiv_id: Community(daily=row) for row in rows}
    for arxiv_id, count in totals(session, list(arxiv_ids)).items():
        found[arxiv_id] = Community(daily=found.get(arxiv_id, Community()).daily, votes=count)
    for arxiv_id, count in threads.counts(session, arxiv_ids).items():
        found[arxiv_id] = replace(found.get(arxiv_id, Community()), comments=count)
    return found


def _transient(email_key: str) -> Subscriber:
    """A reader who has not acted yet, selected for with the digest's defaults (not stored)."""
    return Subscriber(
        id=0,
        email=email_key,
        email_key=email_key,
        status=SubscriberStatus.WEB,
        **WEB_DEFAULTS,
    )


def _marks(session: Session, found: Subscriber) -> Marks:
    return Marks(frozenset(saved_ids(session, found.id)), feedback_of(session, found.id))


def _searches(session: Session, found: Subscriber) -> list[FollowedSearch]:
    if not found.id:
        return []
    return [
        FollowedSearch(id=ident, label=saved.label, query=saved.query, category=saved.category)
        for ident, saved in saved_rows(session, found.id)
    ]


def _follows(session: Session, found: Subscriber) -> Follows:
    topics = found.followed_topics + found.muted_topics
    labels = topic_labels(session, topics)
    names = _author_names(session, found.followed_authors + found.muted_authors)
    return Follows(
        followed_topics=[(t, labels.get(t, f"topic {t}")) for t in found.followed_topics],
        muted_topics=[(t, labels.get(t, f"topic {t}")) for t in found.muted_topics],
        followed_authors=[(k, names.get(k) or k) for k in found.followed_authors],
        muted_authors=[(k, names.get(k) or k) for k in found.muted_authors],
        followed_people=_people_named(session, found.followed_people),
        followed_organizations=organizations_named(session, found.followed_organizations),
    )


def organizations_named(session: Session, slugs: Sequence[str]) -> list[tuple[str, str]]:
    """Each organization as (slug, the name Hugging Face shows), in the order given."""
    if not slugs:
        return []
    rows = session.execute(
        select(HfDailyPaper.organization_name, HfDailyPaper.organization_fullname).where(
            HfDailyPaper.organization_name.in_(list(slugs)),
            HfDailyPaper.organization_fullname.is_not(None),
        )
    )
    names = {slug: name for slug, name in rows if slug and name}
    return [(slug, names.get(slug, slug)) for slug in slugs]


def _author_names(session: Session, keys: list[str]) -> dict[str, str]:
    if not keys:
        return {}
    rows = session.execute(select(Author.key, Author.name).where(Author.key.in_(keys)))
    return {row.key: row.name for row in rows}


def _people_named(session: Session, people: list[int]) -> list[tuple[int, str]]:
    """Each followed person as "Name (person 12)": a name's people share its name."""
    rows = session.execute(
        select(Person.id, Author.name)
        .join(Author, Author.key == Person.author_key)
        .where(Person.id.in_(people))
    ).all()
    names = {row[0]: row[1] for row in rows}
    return [(one, f"{names.get(one, 'someone')} (person {one})") for one in people]
