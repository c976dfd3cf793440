"""A reader's ORCID iD: its form, and the one reader it is linked to.

An iD is linked only once ORCID has signed its holder in (``app.services.orcid_signin``), so
``Subscriber.orcid`` is proof that the reader holds it. One iD belongs to one reader at most
(the column is unique): linking an iD another reader holds is refused, never moved. A claim
that arXiv verified for the iD (``claim_verified_by`` ``arxiv:<iD>``) rests on it, so
unlinking the iD takes that verification back, and the hide of the page that verification
allowed; the claim itself stays, unverified.

An ORCID iD is sixteen characters in four groups, the last a check character (ISO 7064
MOD 11-2, ``X`` for ten): ``0000-0002-1825-0097``.
"""

from __future__ import annotations

import re
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from accounts.person_claims import BY_ARXIV, unverify
from accounts.reader import find, reader_row
from app.core.models import Subscriber
from app.core.refusals import BadInput, Conflict

ORCID_FORM = re.compile(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]")


class OrcidError(BadInput):
    """What ORCID named is not an ORCID iD."""


class OrcidTaken(Conflict):
    """The iD is linked to another reader's account."""


def checked_orcid(text: str) -> str:
    """``text`` if it is an ORCID iD (form and check character), else :class:`OrcidError`."""
    if not ORCID_FORM.fullmatch(text) or check_character(text[:-1]) != text[-1]:
        raise OrcidError("ORCID answered with something that is not an ORCID iD")
    return text


def check_character(base: str) -> str:
    """The check character of an iD's first fifteen digits (dashes are skipped)."""
    total = 0
    for digit in base.replace("-", ""):
        total = (total + int(digit)) * 2
    remainder = (12 - total % 11) % 11
    return "X" if remainder == 10 else str(remainder)


def holder(session: Session, orcid: str) -> Subscriber | None:
    """The reader the iD is linked to, if any."""
    return session.scalars(select(Subscriber).where(Subscriber.orcid == orcid)).first()


def orcid_of(session: Session, email_key: str) -> str | None:
    found = find(session, email_key)
    return None if found is None else found.orcid


def link(session: Session, email_key: str, orcid: str, now: datetime) -> None:
    """Link the iD to the reader (made on their first action, as any); an iD another reader
    holds is refused, and an iD the reader had before is replaced."""
    held = holder(session, orcid)
    if held is not None and held.email_key != email_key:
        raise OrcidTaken(
            f"The ORCID iD {orcid} is linked to another reader's account. Nothing was "
            "changed: sign in as that reader to unlink it first."
        )
    row = reader_row(session, email_key, now)
    if row.orcid not in (None, orcid):
        _forget_verification(session, row)
    row.orcid = orcid
    session.flush()


def unlink(session: Session, email_key: str) -> str | None:
    """Unlink the reader's iD; the iD it was, or None when none was linked."""
    row = find(session, email_key)
    if row is None or row.orcid is None:
        return None
    orcid, row.orcid = row.orcid, None
    _forget_verification(session, row, orcid)
    return orcid


def _forget_verification(session: Session, row: Subscriber, orcid: str | None = None) -> None:
    """A claim verified by arXiv's listing of the iD stops being verified with the iD."""
    if row.claim_verified_by == f"{BY_ARXIV}{orcid or row.orcid}":
        unverify(session, row)
