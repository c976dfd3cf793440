"""A claim of a person checked with arXiv: the claimant's ORCID iD's author feed is read, then
the claim is verified by the papers it lists (:mod:`accounts.person_claims`).

The feed is read between two units of work, never inside one: the politeness gate commits in
transactions of its own, and a reader may wait for it. A reader waits for at most one retry,
and a short back-off, before hearing that arXiv could not be read (the ingest's own runs keep
their patience). A failed read verifies by what an earlier good read of the iD stored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy.orm import Session

from accounts import person_claims
from accounts.person_claims import Verification
from app.core.config import Settings
from app.core.models import Person, Subscriber
from app.services.ingest import engine_of
from app.services.readers import as_reader
from app.services.reports import Deployment
from ingest.arxiv_author import AuthorFeedOutcome, AuthorFeedRead, read_author_feed
from ingest.live import close, make_context

# A reader waits on the page: fewer retries and a shorter back-off than the ingest's.
READER_RETRIES = 1
READER_MAX_WAIT_SECONDS = 10.0


class ArxivCheck(StrEnum):
    """What a claim's check with arXiv ended as; :attr:`message` says it to the claimant."""

    VERIFIED = "verified"
    NOT_LISTED = "not-listed"
    NO_ACCOUNT = "no-account"
    UNREACHABLE = "unreachable"
    NO_ORCID = "no-orcid"
    TAKEN = "taken"

    @property
    def message(self) -> str:
        return _MESSAGES[self]


_MESSAGES = {
    ArxivCheck.VERIFIED: "Verified: arXiv lists papers of this person for your ORCID iD.",
    ArxivCheck.NOT_LISTED: (
        "Not verified: arXiv lists none of this person's papers for your ORCID iD. Your claim "
        "shapes your own view only."
    ),
    ArxivCheck.NO_ACCOUNT: (
        "Not verified: no arXiv account is linked to your ORCID iD. Link it on arXiv "
        "(your account's ORCID setting), then check again."
    ),
    ArxivCheck.UNREACHABLE: (
        "Not verified yet: arXiv could not be read just now. Your claim stands unverified; "
        "check again later."
    ),
    ArxivCheck.NO_ORCID: (
        "Not verified: sign in with ORCID to have arXiv confirm the claim. Until then it "
        "shapes your own view only."
    ),
    ArxivCheck.TAKEN: (
        "Another reader's claim of this person is verified. Yours shapes your own view only; "
        "if that reader is not this person, ask a moderator."
    ),
}

PersonOf = Callable[[Session, int, Subscriber], Person]


@dataclass(frozen=True)
class OwnClaim:
    """The signed-in reader's own claim of the person a page shows."""

    verified: bool
    verified_by: str | None
    can_check: bool  # signed in with ORCID: "Check with arXiv again" works
    said: str = ""  # what the check just made found, in words


def own_claim(subscriber: Subscriber) -> OwnClaim:
    return OwnClaim(
        verified=subscriber.claim_verified_at is not None,
        verified_by=subscriber.claim_verified_by,
        can_check=subscriber.orcid is not None,
    )


def check_with_arxiv(
    site: Deployment, email_key: str, person_id: int, person_of: PersonOf
) -> ArxivCheck:
    """Read the feed of the claimant's iD, then verify their claim of the person by it."""

    def claimant_orcid(session: Session, found: Subscriber, now: datetime) -> str | None:
        person_of(session, person_id, found)
        # Refusals (not the claimant, verified by another) come before any request to arXiv.
        person_claims.require_verifiable(session, found, person_id)
        return found.orcid

    orcid = as_reader(site, email_key, claimant_orcid)
    if orcid is None:
        return ArxivCheck.NO_ORCID
    read = _read_feed(site, orcid)

    def verify(session: Session, found: Subscriber, now: datetime) -> Verification:
        person_of(session, person_id, found)
        return person_claims.verify_claim(session, found, person_id, now).verification

    return _outcome(as_reader(site, email_key, verify), read)


def _read_feed(site: Deployment, orcid: str) -> AuthorFeedRead:
    settings = reader_patience(site.settings)
    context = make_context(settings, engine_of(site.sessions))
    try:
        return read_author_feed(settings, context.sessions, context.arxiv, orcid, site.clock())
    finally:
        close(context)


def reader_patience(settings: Settings) -> Settings:
    """The settings a read a reader waits for runs with: at most one retry, a short wait."""
    retries = min(settings.arxiv_max_retries, READER_RETRIES)
    wait = min(settings.arxiv_max_wait_seconds, READER_MAX_WAIT_SECONDS)
    return settings.model_copy(
        update={"arxiv_max_retries": retries, "arxiv_max_wait_seconds": wait}
    )


def _outcome(verification: Verification, read: AuthorFeedRead) -> ArxivCheck:
    if verification is Verification.VERIFIED:
        return ArxivCheck.VERIFIED
    if verification is Verification.NO_ORCID:
        return ArxivCheck.NO_ORCID
    if read.outcome is AuthorFeedOutcome.NO_ACCOUNT:
        return ArxivCheck.NO_ACCOUNT
    if read.outcome is AuthorFeedOutcome.FAILED:
        return ArxivCheck.UNREACHABLE
    return ArxivCheck.NOT_LISTED
