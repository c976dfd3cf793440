"""arXiv's author feed (``arxiv.org/a/<orcid>.atom2``): the papers arXiv lists for an ORCID iD.

arXiv lets an author link their ORCID iD to their arXiv account and publishes that account's
papers as an Atom feed whose entries have the arXiv API's format (an ``<id>`` of
``http://arxiv.org/abs/<id>v<n>``). Paperboy reads it to verify a claim: the papers it names
are the iD's own. It is read through the deployment's politeness gate, like every arXiv
request, and each read is logged as a run of the source ``arxiv-author``.

What a read ends as (:class:`AuthorFeedOutcome`); only a feed that names papers changes what
is stored, so no failure loses the papers an earlier read found:

* ``listed`` — the feed names papers: they replace the iD's stored ones.
* ``empty`` — a well-formed feed with no entries; the stored papers stay.
* ``no-account`` — arXiv answers 404: no arXiv account is linked to the iD; the stored papers
  stay. (Assumed from how arXiv answers an unknown author path; no such answer is recorded.)
* ``failed`` — the server is down, or the body is not a whole Atom feed (malformed or cut
  short); the stored papers stay and the run is logged as failed with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import delete, select
from sqlalchemy.orm import Session, sessionmaker

from app.core.arxiv_ids import InvalidArxivIdError, parse_arxiv_id
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import IngestRunStatus, OrcidPaper
from app.core.refusals import BadInput
from ingest.errors import FeedFormatError, FetchError, SourceError
from ingest.http import PoliteSession, get
from ingest.live import RunReport, save_reports
from ingest.safe_xml import local_name, parse_xml

SOURCE = "arxiv-author"
_ATOM = "{http://www.w3.org/2005/Atom}"
_ORCID = re.compile(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]")
# An entry's ids that cannot be read are named in the log, this many at most.
_SHOWN_REJECTIONS = 5


class BadOrcidError(BadInput, ValueError):
    """Not an ORCID iD (four groups of four digits, the last character a checksum)."""


class AuthorFeedOutcome(StrEnum):
    LISTED = "listed"
    EMPTY = "empty"
    NO_ACCOUNT = "no-account"
    FAILED = "failed"


@dataclass(frozen=True)
class AuthorFeedRead:
    """One read of an iD's feed: how it ended, the papers stored for the iD after it, and
    why it failed (``failed`` only)."""

    orcid: str
    outcome: AuthorFeedOutcome
    arxiv_ids: tuple[str, ...]
    error: str | None = None


def checked_orcid(text: str) -> str:
    """``text`` as an ORCID iD, its checksum (ISO 7064 MOD 11-2) verified."""
    orcid = text.strip().upper()
    if not _ORCID.fullmatch(orcid):
        raise BadOrcidError(f"not an ORCID iD: {text[:40]!r} (expected 0000-0000-0000-000X)")
    total = 0
    for digit in orcid[:-1].replace("-", ""):
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    if orcid[-1] != ("X" if check == 10 else str(check)):
        raise BadOrcidError(f"not an ORCID iD: {orcid} (its check digit is wrong)")
    return orcid


def author_feed_url(settings: Settings, orcid: str) -> str:
    return f"{settings.arxiv_author_feed_url.rstrip('/')}/{checked_orcid(orcid)}.atom2"


def parse_author_feed(body: bytes) -> tuple[list[str], list[str]]:
    """The arXiv ids (no version) the feed's entries name, in feed order, and the entries
    whose id is no arXiv id. :class:`FeedFormatError` when the body is no Atom feed."""
    root = parse_xml(body, "arXiv author feed")
    if root.tag != f"{_ATOM}feed":
        got = local_name(root)
        raise FeedFormatError(f"arXiv author feed: expected an Atom <feed>, got <{got}>")
    found: dict[str, None] = {}
    rejected: list[str] = []
    for number, entry in enumerate(root.iter(f"{_ATOM}entry"), start=1):
        text = (entry.findtext(f"{_ATOM}id") or "").strip()
        try:
            found[parse_arxiv_id(text).base] = None
        except InvalidArxivIdError:
            rejected.append(f"entry {number}: no arXiv id in {text[:80]!r}")
    return list(found), rejected


def read_author_feed(
    settings: Settings,
    sessions: sessionmaker[Session],
    http: PoliteSession,
    orcid: str,
    now: datetime,
) -> AuthorFeedRead:
    """Read the iD's feed, store what it names (see the module's outcomes), log the run."""
    url = author_feed_url(settings, orcid)
    report = RunReport(SOURCE, detail=url, started_at=now)
    try:
        ids = _fetched_ids(http, url, report)
    except SourceError as error:
        report.escalate(IngestRunStatus.FAILED, str(error))
        save_reports(sessions, [report])
        stored = _stored(sessions, orcid)
        return AuthorFeedRead(orcid, AuthorFeedOutcome.FAILED, stored, error=str(error))
    if ids:
        with session_scope(sessions) as session:
            _replace(session, orcid, ids, now)
    save_reports(sessions, [report])
    outcome = (
        AuthorFeedOutcome.NO_ACCOUNT
        if ids is None
        else AuthorFeedOutcome.LISTED
        if ids
        else AuthorFeedOutcome.EMPTY
    )
    return AuthorFeedRead(orcid, outcome, _stored(sessions, orcid))


def _fetched_ids(http: PoliteSession, url: str, report: RunReport) -> list[str] | None:
    """The feed's ids; None when arXiv links no account to the iD."""
    try:
        response = get(http, url)
    except FetchError as error:
        if error.status != 404:
            raise
        report.escalate(IngestRunStatus.EMPTY, "arXiv links no account to this ORCID iD (404)")
        return None
    ids, rejected = parse_author_feed(response.content)
    report.counts.update(read=len(ids) + len(rejected), rejected=len(rejected))
    if rejected:
        report.escalate(IngestRunStatus.PARTIAL, "\n".join(rejected[:_SHOWN_REJECTIONS]))
    elif not ids:
        report.escalate(IngestRunStatus.EMPTY, "the feed lists no papers")
    return ids


def _replace(session: Session, orcid: str, ids: list[str], now: datetime) -> None:
    session.execute(delete(OrcidPaper).where(OrcidPaper.orcid == orcid))
    session.add_all(OrcidPaper(orcid=orcid, arxiv_id=one, fetched_at=now) for one in ids)


def _stored(sessions: sessionmaker[Session], orcid: str) -> tuple[str, ...]:
    with sessions() as session:
        found = select(OrcidPaper.arxiv_id).where(OrcidPaper.orcid == orcid)
        return tuple(sorted(session.scalars(found)))


def stored_papers(session: Session, orcid: str) -> set[str]:
    """The papers the iD's last good read of its feed named."""
    return set(session.scalars(select(OrcidPaper.arxiv_id).where(OrcidPaper.orcid == orcid)))
