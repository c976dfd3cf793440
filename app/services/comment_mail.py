"""Mail about discussions as use cases: the ``discussion-mail`` job that queues each reader's
mail of new comments in the outbox, a reader's two switches (their For you page), and the
one-click link in such a mail that turns one kind off (:mod:`accounts.comment_mail` has the
rules, :mod:`digest.mail.comment_notices` the mail).

The job queues a reader's mail and records its comments in one unit of work: a crash before
it commits mails nothing and records nothing, so the next run mails them; once committed,
the ``mail`` job sends it and retries it while the server is away.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy.orm import Session, sessionmaker

from accounts import comment_mail, links
from accounts.comment_mail import Batch
from accounts.subscriptions import subscriber_for
from app.core import tokens
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import CommentMail, MailKind, Subscriber
from app.services.readers import as_reader
from app.services.reports import Completed, Deployment
from digest.mail import outbox
from digest.mail.comment_notices import comments_message

__all__ = ["CommentMail", "CommentMailReport", "MailSwitches"]
log = logging.getLogger("paperboy.mail")


@dataclass(frozen=True)
class CommentMailReport(Completed):
    """What one run of the ``discussion-mail`` job did."""

    queued: int
    comments: int

    def lines(self) -> list[str]:
        if not self.queued:
            return []
        return [f"comment mail: {self.queued} queued, telling of {self.comments} comments"]


def queue_comment_mail(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, _day: date | None = None
) -> CommentMailReport:
    """The ``discussion-mail`` job: one mail a reader due one, of the comments they wait for."""
    with session_scope(sessions) as session:
        comment_mail.prune(session, now)
        waiting = comment_mail.pending(session, now)
        readers = {notice.reader_id for notice in waiting}
        due = comment_mail.batches(waiting, comment_mail.last_mailed(session, readers), now)
    for batch in due:
        with session_scope(sessions) as session:
            _queue(session, settings, batch, now)
    return CommentMailReport(len(due), sum(len(batch.notices) for batch in due))


def _queue(session: Session, settings: Settings, batch: Batch, now: datetime) -> None:
    reader = session.get_one(Subscriber, batch.reader_id)
    mail = comments_message(settings, reader, reader.email, batch, now)
    comment_mail.record(session, batch, now)
    outbox.queue(session, MailKind.COMMENTS, mail, now)


@dataclass(frozen=True, slots=True)
class MailSwitches:
    """A reader's two kinds of mail about discussions, whether the second is theirs to have (a
    verified author's), and whether their digest lists the papers discussed."""

    replies: bool
    papers: bool
    discussed: bool
    author: bool = False


def switches_of(subscriber: Subscriber) -> MailSwitches:
    return MailSwitches(
        replies=comment_mail.is_on(subscriber, CommentMail.REPLIES),
        papers=comment_mail.is_on(subscriber, CommentMail.PAPERS),
        discussed=subscriber.discussed_in_digest,
        author=subscriber.claim_verified_at is not None,
    )


def set_switches(site: Deployment, email_key: str, asked: MailSwitches) -> MailSwitches:
    """Turn the signed-in reader's two kinds of mail, and their digest's papers discussed, on
    or off as their form says."""

    def step(session: Session, found: Subscriber, now: datetime) -> MailSwitches:
        comment_mail.switch(found, CommentMail.REPLIES, asked.replies, now)
        comment_mail.switch(found, CommentMail.PAPERS, asked.papers, now)
        found.discussed_in_digest = asked.discussed
        return switches_of(found)

    return as_reader(site, email_key, step)


def _link_kind(settings: Settings, token: str, now: datetime) -> CommentMail:
    age = links.max_age(settings, links.COMMENT_MAIL_OFF)
    claims = tokens.verify(settings.secret_key, token, links.COMMENT_MAIL_OFF, now, age)
    try:
        return CommentMail(claims.extra.get("mail", ""))
    except ValueError:
        raise tokens.TokenError("malformed") from None


def _turn_off(session: Session, settings: Settings, token: str, now: datetime) -> CommentMail:
    kind = _link_kind(settings, token, now)
    found = subscriber_for(session, settings, token, links.COMMENT_MAIL_OFF, now)
    comment_mail.switch(found, kind, False, now)
    return kind


def mail_off_kind(site: Deployment, token: str) -> CommentMail:
    """The kind of mail a link turns off (read only; :class:`TokenError` if refused)."""
    now = site.clock()
    with session_scope(site.sessions) as session:
        kind = _link_kind(site.settings, token, now)
        subscriber_for(session, site.settings, token, links.COMMENT_MAIL_OFF, now)
        return kind


def turn_off(site: Deployment, token: str) -> CommentMail:
    """Turn off the one kind of mail the link names; that kind (:class:`TokenError`)."""
    with session_scope(site.sessions) as session:
        return _turn_off(session, site.settings, token, site.clock())


def turn_off_by_mail(
    settings: Settings, sessions: sessionmaker[Session], token: str, now: datetime
) -> CommentMail:
    """What a mail to the ``mailto:`` unsubscribe address of a comment mail does."""
    with session_scope(sessions) as session:
        return _turn_off(session, settings, token, now)
