"""The subscription, sign-in and vote steps the pages run, each its own unit of work.

Every function opens one session scope, does one step of ``accounts`` at the
deployment's clock, and commits before it returns, so a page sends mail only once the step is
stored. A step that may make a row runs as :func:`app.core.db.unit_of_work`: the same request
sent many times at once (a double click) makes it once and is answered as the first every
time. They block (database I/O): the async routes run them in the thread pool. A link that
does not hold raises :class:`app.core.tokens.TokenError`, which the app answers with a page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import select
from sqlalchemy.orm import Session

from accounts import discussion, links, list_readers, reader, signin, subscriptions, threads, votes
from accounts.access_tokens import every_token
from accounts.addresses import Address
from accounts.library import reader_lists
from accounts.preferences import Preferences, phrases
from accounts.saved_searches import searches_of
from app.core.db import session_scope, unit_of_work
from app.core.models import (
    DigestFeedback,
    MailKind,
    ModerationDecision,
    Paper,
    Person,
    PersonCorrection,
    SignInKey,
    Subscriber,
    SubscriberStatus,
    Vote,
)
from app.services.reports import Deployment
from digest.mail import outbox
from digest.mail.confirmation import (
    confirmation_message,
    known_address_message,
    signin_message,
)
from digest.run_inputs import Encode
from digest.tastes import embed_phrases


class PreferencesAction(StrEnum):
    """The preferences form's buttons: save, or save and also pause or resume the digest."""

    SAVE = "save"
    PAUSE = "pause"
    RESUME = "resume"


@dataclass(frozen=True, slots=True)
class SignedIn:
    voter: str  # the mailbox's key
    cookie: str  # the session cookie's value


def request_subscription(
    site: Deployment,
    address: Address,
    preferences: Preferences,
    client: str,
    holder: str | None = None,
) -> str:
    """Store the request (``holder``: the mailbox the asker is signed in as) and queue its
    mail in the same unit of work; the ticket of the mail's status page.

    A known address is changed only for its holder: anyone else's request leaves it as it is
    and mails its owner the links that act. Either mail is a confirmation to the outbox, so
    its ticket and status page say nothing of which it was.
    """
    now = site.clock()

    def work(session: Session) -> str:
        asked = subscriptions.request_subscription(
            session, site.settings, address, preferences, client, now, holder=holder
        )
        if asked is not None:
            mail = confirmation_message(site.settings, asked, now)
        else:
            known = subscriptions.find_subscriber(session, address.key)
            assert known is not None  # None means the address is stored
            mail = known_address_message(site.settings, known, now)
        return outbox.queue(session, MailKind.CONFIRMATION, mail, now).ticket

    return unit_of_work(site.sessions, work)


def check_confirmation(site: Deployment, token: str) -> None:
    with session_scope(site.sessions) as session:
        subscriptions.check_confirmation(session, site.settings, token, site.clock())


def confirm(site: Deployment, token: str) -> None:
    now = site.clock()
    unit_of_work(
        site.sessions,
        lambda session: subscriptions.confirm(session, site.settings, token, now),
    )


def subscriber(site: Deployment, token: str, purpose: str) -> Subscriber:
    """The subscriber a link of ``purpose`` is for (read only)."""
    with session_scope(site.sessions) as session:
        return _subscriber(session, site, token, purpose, site.clock())


def save_preferences(
    site: Deployment,
    token: str,
    preferences: Preferences,
    action: PreferencesAction,
    encode: Encode | None = None,
) -> None:
    """Saves the form; with ``encode`` (a process that has the query model) the interests and
    exclusions are embedded now, so For you reads them at once rather than after a digest run."""
    with session_scope(site.sessions) as session:
        found = _subscriber(session, site, token, links.PREFERENCES, site.clock())
        subscriptions.apply_preferences(found, preferences)
        if encode is not None:
            texts = phrases(found.interests) + phrases(found.exclusions)
            embed_phrases(session, site.settings.embedding_model, encode, texts)
        if action is PreferencesAction.PAUSE and found.status == SubscriberStatus.ACTIVE:
            found.status = SubscriberStatus.PAUSED
        elif action is PreferencesAction.RESUME and found.status == SubscriberStatus.PAUSED:
            found.status, found.failure_count = SubscriberStatus.ACTIVE, 0


@dataclass(frozen=True, slots=True)
class FeedbackTarget:
    arxiv_id: str
    title: str | None  # None when the paper is no longer stored


def feedback_paper(site: Deployment, token: str) -> FeedbackTarget:
    """The paper a feedback link names, and its title; :class:`TokenError` if refused."""
    with session_scope(site.sessions) as session:
        now = site.clock()
        arxiv_id = subscriptions.feedback_paper(session, site.settings, token, now)
        title = session.scalar(select(Paper.title).where(Paper.arxiv_id == arxiv_id))
        return FeedbackTarget(arxiv_id, title)


def record_feedback(site: Deployment, token: str, value: int) -> None:
    """A thumbs up (1) or down (-1) on the paper the feedback link names."""
    now = site.clock()
    unit_of_work(
        site.sessions,
        lambda session: subscriptions.record_feedback(session, site.settings, token, value, now),
    )


def unsubscribe(site: Deployment, token: str) -> None:
    now = site.clock()
    with session_scope(site.sessions) as session:
        subscriptions.unsubscribe(_subscriber(session, site, token, links.UNSUBSCRIBE, now), now)


def export(site: Deployment, token: str) -> dict[str, object]:
    """Everything stored about the subscriber, as plain JSON values."""
    with session_scope(site.sessions) as session:
        found = _subscriber(session, site, token, links.PREFERENCES, site.clock())
        return export_of(session, found)


# The row's keys: the reader never needs them, and a download lying in a folder or a mailbox
# must not be enough to forge their links or open their private feed.
KEY_MATERIAL = frozenset({"link_key", "feed_key"})


def export_of(session: Session, found: Subscriber) -> dict[str, object]:
    """A subscriber's row (less :data:`KEY_MATERIAL`: the claim, its verification and the
    ORCID iD are columns of it), thumbs, reading list, lists, notes, saved searches, first
    sign-in, shared lists, followed lists and editor roles, display name and comments, and
    what they did about people (:func:`_people_data`), as plain JSON values."""
    names = (column.name for column in Subscriber.__table__.columns)
    data = {name: _plain(getattr(found, name)) for name in names if name not in KEY_MATERIAL}
    signed_in = select(SignInKey.signed_in_at).where(SignInKey.email_key == found.email_key)
    data["signed_in_at"] = _plain(session.scalar(signed_in))
    feedback = session.scalars(
        select(DigestFeedback).where(DigestFeedback.subscriber_id == found.id)
    )
    data["feedback"] = [
        {"arxiv_id": row.arxiv_id, "value": row.value, "not_interested": row.hidden}
        for row in feedback
    ]
    # Hidden ones too: a paper marked "not interested" keeps its note, which is the reader's.
    saved = reader.every_saved_row(session, found.id)
    data["saved_papers"] = [row.arxiv_id for row in saved]
    data["reading_lists"] = [{"id": i, "name": name} for i, name in reader_lists(session, found.id)]
    data["library"] = [
        {
            "arxiv_id": row.arxiv_id,
            "list_id": row.list_id,
            "read_at": _plain(row.read_at),
            "note": row.note,
        }
        for row in saved
    ]
    data["saved_searches"] = [
        {"query": saved.query, "category": saved.category}
        for saved in searches_of(session, found.id)
    ]
    data["display_name"] = discussion.display_name(session, found)
    data["comments"] = threads.of_reader(session, found.id)
    data["access_tokens"] = _tokens_data(session, found)
    return data | list_readers.export_of(session, found) | _people_data(session, found)


def _tokens_data(session: Session, found: Subscriber) -> list[dict[str, object]]:
    """Every token the reader made, revoked and expired ones too: what it is called, what it
    may do and when it was made, last used, revoked and expires; never the token's digest or
    its first characters, which are key material as the row's keys are."""
    return [
        {
            "name": row.name,
            "scope": str(row.scope),
            "created_at": _plain(row.created_at),
            "last_used_at": _plain(row.last_used_at),
            "revoked_at": _plain(row.revoked_at),
            "expires_at": _plain(row.expires_at),
        }
        for row in every_token(session, found.id)
    ]


def _people_data(session: Session, found: Subscriber) -> dict[str, object]:
    """Their votes, their "not by this person" corrections (taken back ones too), the pages
    they hid, and the moderators' decisions about their claims and corrections (the
    moderator's own address is theirs, not the reader's, and stays out)."""
    votes_cast = session.scalars(select(Vote).where(Vote.voter == found.email_key))
    corrections = session.scalars(
        select(PersonCorrection)
        .where(PersonCorrection.subscriber_id == found.id)
        .order_by(PersonCorrection.id)
    )
    decisions = session.scalars(
        select(ModerationDecision)
        .where(ModerationDecision.subscriber_id == found.id)
        .order_by(ModerationDecision.id)
    )
    hidden = select(Person.id).where(Person.hidden_by == f"reader:{found.id}")
    return {
        "votes": [
            {"arxiv_id": v.arxiv_id, "voted_on": _plain(v.voted_on), "at": _plain(v.created_at)}
            for v in votes_cast
        ],
        "corrections": [_columns(row, {"id", "subscriber_id"}) for row in corrections],
        "hidden_people": list(session.scalars(hidden.order_by(Person.id))),
        "moderation_decisions": [
            _columns(row, {"id", "subscriber_id", "moderator"}) for row in decisions
        ],
    }


def _columns(row: PersonCorrection | ModerationDecision, left_out: set[str]) -> dict[str, object]:
    """A row's columns as plain JSON values, less ``left_out``."""
    names = (column.name for column in type(row).__table__.columns)
    return {name: _plain(getattr(row, name)) for name in names if name not in left_out}


def delete_everything(site: Deployment, token: str) -> None:
    with session_scope(site.sessions) as session:
        found = _subscriber(session, site, token, links.PREFERENCES, site.clock())
        outbox.forget(session, found.email)
        subscriptions.delete_everything(session, found)


def request_signin(site: Deployment, address: Address, client: str) -> str:
    """Queue the sign-in link's mail; the ticket of its status page (raises
    ``RateLimitedError`` when asked too often)."""
    now = site.clock()

    def work(session: Session) -> str:
        subscriptions.check_rate(session, site.settings, f"signin:{address.key}", client, now)
        key = signin.key_for(session, address.key, now)
        mail = signin_message(site.settings, address.delivery, key, now)
        return outbox.queue(session, MailKind.SIGN_IN, mail, now).ticket

    return unit_of_work(site.sessions, work)


def check_signin_link(site: Deployment, token: str) -> None:
    with session_scope(site.sessions) as session:
        signin.check_link(session, site.settings, token, site.clock())


def sign_in(site: Deployment, token: str, nonce: str) -> SignedIn:
    """Spend the sign-in link (it works once, and again moments later from the browser whose
    CSRF ``nonce`` pressed it) and open a session."""
    now = site.clock()

    def work(session: Session) -> SignedIn:
        voter = signin.spend_link(session, site.settings, token, now, nonce)
        return SignedIn(voter, signin.session_token(site.settings, session, voter, now))

    return unit_of_work(site.sessions, work)


def sign_out_everywhere(site: Deployment, voter: str) -> None:
    with session_scope(site.sessions) as session:
        signin.sign_out_everywhere(session, voter)


def voter(site: Deployment, cookie: str) -> str | None:
    """Who the session cookie signs in, or None."""
    if not cookie:
        return None
    with session_scope(site.sessions) as session:
        return signin.voter(session, site.settings, cookie, site.clock())


def vote(site: Deployment, voter: str, arxiv_id: str, *, up: bool) -> int:
    """Cast (``up``) or take back a vote; the paper's Paperboy votes after it."""
    now = site.clock()

    def work(session: Session) -> int:
        if up:
            return votes.cast(session, voter, arxiv_id, now)
        return votes.retract(session, voter, arxiv_id)

    return unit_of_work(site.sessions, work)


def _subscriber(
    session: Session, site: Deployment, token: str, purpose: str, now: datetime
) -> Subscriber:
    return subscriptions.subscriber_for(session, site.settings, token, purpose, now)


def _plain(value: object) -> object:
    return value.isoformat() if isinstance(value, date) else value
