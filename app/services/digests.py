"""Sending the digests: purge week-old unconfirmed sign-ups, then mail edition D's digest to
every confirmed subscriber whose local delivery hour has come and who has not had it (the
digests job and ``paperboy send-digests``; the ledger makes re-running safe). One reader's
digest can also be previewed (rendered, sent and recorded nowhere) or sent again.

The embedding model loads only if some subscriber's interests or exclusions were never
embedded before (:func:`lazy_encoder`).

A reader's "For you" is the picks their digest would hold of the latest edition, on the site.

The web page and the private feed call :func:`picks_for`, which runs the digest's own
selection (``digest.sections.reader_picks``) on the edition the digest would send the reader
(the day's, or the week's for a weekly reader), read the way a digest run reads it
(``digest.run_inputs``). A reader with no subscriber row yet is selected for with the digest's
defaults.

The page does not load the embedding model: interests are embedded when the preferences form
saves them (``app.services.accounts.save_preferences``), and a phrase nothing has embedded yet
is left out until a digest run does (``digest.tastes``), as it is by a run without a model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy.orm import Session, sessionmaker
from threadpoolctl import threadpool_limits

from accounts.subscriptions import find_subscriber, purge_unconfirmed
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import EditionKey, Frequency, Subscriber
from app.core.models.subscriptions import mailbox_key
from app.core.reads import latest_edition
from app.core.vectors import Matrix
from app.services.reports import Failure, Outcome
from digest.compose import build_digest
from digest.due_rows import edition_for
from digest.ledger import Reader
from digest.mail.messages import OutgoingMail
from digest.run_inputs import Encode, edition_view
from digest.sections import reader_picks
from digest.selection import EditionView, Pick
from digest.sending import RunSummary, resend, send_digests
from digest.tastes import Tastes
from ranking.embedder import query_embedder
from search.searcher import Searcher, make_searcher

NOTHING_PUBLISHED = "send-digests: no edition published yet; nothing to send"


@dataclass(frozen=True)
class DigestsReport:
    purged: int
    # None when no edition is published yet.
    sent: RunSummary | None

    @property
    def outcome(self) -> Outcome:
        return Outcome.FAILED if self.failure else Outcome.OK

    @property
    def failure(self) -> Failure | None:
        return delivery_failure(self.sent) if self.sent else None

    def lines(self) -> list[str]:
        if self.sent is None:
            return [NOTHING_PUBLISHED]
        return [f"{self.sent.line()}; {self.purged} unconfirmed sign-ups purged"]


def delivery_failure(summary: RunSummary) -> Failure | None:
    """The mail server's refusal that stopped a run (it is retried by running again)."""
    return Failure("DeliveryError", summary.error) if summary.error else None


def send_due_digests(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None = None
) -> DigestsReport:
    """Edition ``day``'s digests (None: the latest day's) to everyone due at ``now``."""
    with session_scope(sessions) as session:
        purged = purge_unconfirmed(session, settings, now)
        day = day or latest_day_edition(session)
    if day is None:
        return DigestsReport(purged, None)
    # Selecting for thousands of readers is many small matrix products, which BLAS threads only
    # fight over: one thread is several times faster than OpenBLAS's default on two cores
    # (docs/benchmarks.md, "Email digest delivery").
    with threadpool_limits(limits=1, user_api="blas"):
        sent = send_digests(
            settings,
            sessions,
            day,
            now,
            lazy_encoder(settings),
            search=run_searcher(settings, sessions),
        )
    return DigestsReport(purged, sent)


def latest_day_edition(session: Session) -> date | None:
    """The newest day a day edition is published for (``ranking.editions`` answers which)."""
    edition = latest_edition(session, "day", None)
    return None if edition is None else edition.edition_date


def run_searcher(settings: Settings, sessions: sessionmaker[Session]) -> Searcher:
    """The deployment's search, for the readers' saved searches (loaded on the first one)."""
    return make_searcher(settings, sessions, query_embedder)


def lazy_encoder(settings: Settings) -> Encode:
    """An encode function that loads the embedding model on its first call only."""
    loaded: list[Encode] = []

    def encode(texts: Sequence[str]) -> Matrix:
        if not loaded:
            from ranking.embedder import make_embedder

            loaded.append(make_embedder(settings).encode)
        return loaded[0](texts)

    return encode


class NothingToPreviewError(LookupError):
    """No such subscriber, or no edition published yet."""


@dataclass(frozen=True)
class DigestPreview:
    day: date
    # None when the reader's digest of that edition would hold nothing.
    message: OutgoingMail | None


def preview(
    settings: Settings,
    sessions: sessionmaker[Session],
    email: str,
    day: date | None,
    now: datetime,
) -> DigestPreview:
    """The digest ``email`` would get of edition ``day`` (None: the latest day's), rendered
    only; :class:`NothingToPreviewError` if there is no such reader or no edition."""
    with session_scope(sessions) as session:
        subscriber = subscriber_by_email(session, email)
        day = day or latest_day_edition(session)
        if subscriber is None or day is None:
            what = "no such subscriber" if subscriber is None else "no edition published yet"
            raise NothingToPreviewError(what)
        search = run_searcher(settings, sessions)
        return DigestPreview(day, _rendered(settings, session, subscriber, day, now, search))


def _rendered(
    settings: Settings,
    session: Session,
    subscriber: Subscriber,
    day: date,
    now: datetime,
    search: Searcher,
) -> OutgoingMail | None:
    target = edition_for(subscriber.frequency, day)
    edition = latest_edition(session, target.period, target.edition_date, with_items=True)
    if edition is None:
        return None
    view = edition_view(session, edition, settings.embedding_model, search)
    # Previewing claims no ledger row: it sends nothing and records nothing.
    tastes = Tastes(session, settings.embedding_model, lazy_encoder(settings))
    reader = Reader.of(subscriber)
    built = build_digest(settings, session, reader, view, target, now, tastes)
    return built[0] if built else None


def resend_digest(
    settings: Settings,
    sessions: sessionmaker[Session],
    email: str,
    day: date | None,
    now: datetime,
) -> RunSummary | None:
    """Mail ``email`` edition ``day``'s digest again (None: the latest day's); None if there
    is no such subscriber or no edition."""
    with session_scope(sessions) as session:
        subscriber = subscriber_by_email(session, email)
        day = day or latest_day_edition(session)
        subscriber_id = subscriber.id if subscriber else None
    if subscriber_id is None or day is None:
        return None
    search = run_searcher(settings, sessions)
    return resend(
        settings, sessions, subscriber_id, day, now, lazy_encoder(settings), search=search
    )


def subscriber_by_email(session: Session, email: str) -> Subscriber | None:
    return find_subscriber(session, mailbox_key(email.strip()))


# How a caller keeps edition views between requests: given the key and how to build it.
ViewCache = Callable[[EditionKey, Callable[[], EditionView | None]], EditionView | None]


@dataclass(frozen=True, slots=True)
class PersonalPicks:
    # None when nothing is published yet.
    edition: EditionKey | None
    picks: list[Pick]
    followed_left_out: int = 0
    searched_left_out: int = 0
    organizations_left_out: int = 0


def target_edition(session: Session, frequency: Frequency, day: date | None) -> EditionKey | None:
    """The edition a reader of ``frequency`` gets for ``day`` (None: the newest day)."""
    day = day or latest_day_edition(session)
    return None if day is None else edition_for(frequency, day)


def view_of(
    session: Session, settings: Settings, key: EditionKey, search: Searcher | None = None
) -> EditionView | None:
    """The newest version of edition ``key`` as the selection reads it; None if unpublished
    (``search``: runs saved searches over its days)."""
    edition = latest_edition(session, key.period, key.edition_date, with_items=True)
    if edition is None:
        return None
    return edition_view(session, edition, settings.embedding_model, search)


def picks_for(
    settings: Settings,
    session: Session,
    subscriber: Subscriber,
    day: date | None = None,
    *,
    encode: Encode | None = None,
    views: ViewCache | None = None,
    search: Searcher | None = None,
) -> PersonalPicks:
    """The reader's picks of edition ``day`` (None: the latest), as their digest holds them."""
    key = target_edition(session, subscriber.frequency, day)
    if key is None:
        return PersonalPicks(None, [])

    def build() -> EditionView | None:
        return view_of(session, settings, key, search)

    view = build() if views is None else views(key, build)
    if view is None:
        return PersonalPicks(key, [])
    # One reader's page reads that reader's thumbs only, however many readers there are.
    tastes = Tastes(session, settings.embedding_model, encode, only=subscriber.id)
    chosen = reader_picks(settings, session, Reader.of(subscriber), view, tastes)
    return PersonalPicks(
        edition=key,
        picks=chosen.picks,
        followed_left_out=chosen.followed_left_out,
        searched_left_out=chosen.searched_left_out,
        organizations_left_out=chosen.organizations_left_out,
    )
