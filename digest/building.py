"""One reader's digest, built: their picks from an edition (or, for a catch-up, from the days
they missed) rendered as the mail to send; no ledger and no server (``digest.sending`` runs
those)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import NamedTuple

from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.models import EditionKey
from digest.catch_up import MAX_PAPERS, Gap, changes, gathered
from digest.compose import Away, WeekNotes, digest_message
from digest.emerging_notes import emerging_notes, review_note
from digest.ledger import Reader
from digest.mail.messages import OutgoingMail
from digest.sections import reader_picks
from digest.selection import EditionView
from digest.tastes import Tastes


class BuiltDigest(NamedTuple):
    message: OutgoingMail
    item_count: int
    catch_up: bool = False  # a catch-up of missed days: sent, the reader is back


def build_digest(
    settings: Settings,
    session: Session,
    reader: Reader,
    view: EditionView,
    edition: EditionKey,
    now: datetime,
    tastes: Tastes,
    message_id: str | None = None,
    gap: Gap | None = None,
) -> BuiltDigest | None:
    """The reader's digest and its size, or None when it would be empty and unwanted
    (``message_id``: an earlier try's, which it carries again; ``gap``: the days a catch-up
    covers, ``view`` being theirs)."""
    if gap is None:
        picks = reader_picks(settings, session, reader, view, tastes)
        away = None
    else:
        wider = replace(reader, max_items=MAX_PAPERS)
        picks = gathered(reader_picks(settings, session, wider, view, tastes))
        away = Away(gap.first, gap.last, changes(session, gap))
    if not picks and not reader.send_empty:
        return None
    notes = WeekNotes(
        emerging_notes(session, settings, edition), review_note(session, settings, edition)
    )
    message = digest_message(settings, reader, edition, picks, now, message_id, away, notes)
    return BuiltDigest(message, len(picks), catch_up=gap is not None)
