"""The signed-in reader's actions: save, thumbs, follow, mute, claim, the private feed's key,
away, saved searches, and forgetting them.

Every action opens one unit of work at the deployment's clock and commits before it returns;
they block (database I/O), so the async routes run them in the thread pool. A signed-in
reader's first action makes their subscriber row (``accounts.reader.reader_row``);
reading their pages never writes (``app.web.reader_views``). Actions run as
:func:`app.core.db.unit_of_work`, so a button pressed many times at once acts once and
answers every press. What an action names and Paperboy does not hold is refused as
:class:`NotFound`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from accounts import person_claims, reader, saved_searches, subscriptions
from accounts.reader import Stance
from app.core.db import unit_of_work
from app.core.models import Author, HfDailyPaper, Paper, Subscriber, Topic
from app.core.refusals import NotFound
from app.services.reports import Deployment
from digest import catch_up

__all__ = ["Stance"]

T = TypeVar("T")
Step = Callable[[Session, Subscriber, datetime], T]


def as_reader(site: Deployment, email_key: str, step: Step[T]) -> T:
    """Run one step on the reader's row (made in the status ``web`` if they have none), in
    its own unit of work; a row it names that is not stored is :class:`NotFound`."""
    now = site.clock()
    try:
        return unit_of_work(
            site.sessions,
            lambda session: step(session, reader.reader_row(session, email_key, now), now),
        )
    except LookupError as missing:
        raise NotFound(f"not stored here: {missing}") from missing


def forget(site: Deployment, email_key: str) -> None:
    """Delete the reader's row and all it holds, their votes and sign-in key (signed out)."""
    now = site.clock()
    unit_of_work(
        site.sessions,
        lambda session: subscriptions.delete_everything(
            session, reader.reader_row(session, email_key, now)
        ),
    )


def save_paper(site: Deployment, email_key: str, arxiv_id: str, *, saved: bool) -> None:
    """Keep the paper on the reading list, or take it off."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        if saved:
            reader.save(session, found, arxiv_id, now)
        else:
            reader.unsave(session, found, arxiv_id)

    as_reader(site, email_key, step)


def give_feedback(site: Deployment, email_key: str, arxiv_id: str, value: int) -> None:
    """A thumb on the paper: 1 up, -1 down, 0 none."""
    as_reader(
        site,
        email_key,
        lambda session, found, now: reader.give_feedback(session, found, arxiv_id, value, now),
    )


def _stored(session: Session, kind: type[Author | Topic], ident: str | int) -> None:
    """Refuse an author or topic Paperboy does not hold."""
    if session.get(kind, ident) is None:
        raise LookupError(f"{kind.__tablename__} {ident}")


def set_author_stance(site: Deployment, email_key: str, key: str, stance: Stance) -> None:
    """Follow, mute or neither a stored author; leaving the name leaves its people too."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        _stored(session, Author, key)
        reader.set_author(found, key, stance)
        if stance is not Stance.FOLLOW:
            reader.leave_people_of(session, found, key)

    as_reader(site, email_key, step)


def set_topic_stance(site: Deployment, email_key: str, topic: int, stance: Stance) -> None:
    """Follow, mute or neither a stored topic."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        _stored(session, Topic, topic)
        reader.set_topic(found, topic, stance)

    as_reader(site, email_key, step)


def follow_organization(site: Deployment, email_key: str, slug: str, *, follow: bool) -> None:
    """Follow an organization that has a page here, or stop (leaving always works, even an
    organization whose papers are no longer stored)."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        if follow and not _organization_shown(session, slug):
            raise LookupError(f"organization {slug}")
        reader.set_organization(found, slug, follow=follow)

    as_reader(site, email_key, step)


def _organization_shown(session: Session, slug: str) -> bool:
    """Whether the organization has a page: a stored paper was submitted under it."""
    query = (
        select(HfDailyPaper.arxiv_id)
        .join(Paper, Paper.arxiv_id == HfDailyPaper.arxiv_id)
        .where(HfDailyPaper.organization_name == slug)
        .limit(1)
    )
    return session.scalar(query) is not None


def claim_author(site: Deployment, email_key: str, key: str) -> None:
    """ "This is me" on a stored author's page, in place of any claim before."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        _stored(session, Author, key)
        person_claims.let_go(session, found)
        reader.claim(session, found, key, now)

    as_reader(site, email_key, step)


def unclaim_author(site: Deployment, email_key: str, key: str) -> None:
    """Take back the claim of this author (a claim of another stays)."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        if found.claimed_author == key:
            person_claims.let_go(session, found)

    as_reader(site, email_key, step)


def away_since(site: Deployment, asked: str) -> date | None:
    """The day a reader says they were away since (empty: not away), refused when it is no
    day or in the future (:class:`catch_up.AwayRefusedError`)."""
    return catch_up.away_since(asked, site.clock().date())


def mark_away(site: Deployment, email_key: str, since: date | None) -> None:
    """The next day digest catches up on the days since ``since`` (None: not away)."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        found.away_since = since

    as_reader(site, email_key, step)


def make_feed(site: Deployment, email_key: str) -> None:
    """Draw the private feed's key, unless the reader has one."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        if found.feed_key is None:
            reader.revoke_feed(found)

    as_reader(site, email_key, step)


def revoke_feed(site: Deployment, email_key: str) -> None:
    """Draw a new private feed key: every feed URL given before stops working."""
    as_reader(site, email_key, lambda session, found, now: reader.revoke_feed(found))


def save_search(site: Deployment, email_key: str, query: str, category: str) -> None:
    """Follow a search: a section of the reader's digest."""
    as_reader(
        site,
        email_key,
        lambda session, found, now: saved_searches.save_search(
            session, found, query, category, now
        ),
    )


def forget_search(site: Deployment, email_key: str, search_id: int) -> None:
    """Stop following one of the reader's saved searches."""
    as_reader(
        site,
        email_key,
        lambda session, found, now: saved_searches.forget_search(session, found, search_id),
    )
