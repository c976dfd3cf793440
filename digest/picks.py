"""One reader's picks of a day: the one selection the digest and the site's "For you" share.

The digest run and the web page both call :func:`reader_picks` with the edition as the
selection sees it (for a day edition, every paper announced that day) and the run's (or the
request's) tastes, so a reader sees on the site what their digest of that edition holds, in
the same sections and order and with the same reasons.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.core.config import Settings
from digest.ledger import Reader
from digest.sections import Sectioned, sectioned_picks
from digest.selection import EditionView
from digest.tastes import Tastes


def reader_picks(
    settings: Settings, session: Session, reader: Reader, view: EditionView, tastes: Tastes
) -> Sectioned:
    """The reader's picks of ``view`` in sections, each with why."""
    return sectioned_picks(
        view,
        tastes.of(session, reader),
        max_per_topic=settings.diversity_max_per_topic,
        exclusion_cosine=settings.digest_exclusion_cosine,
    )
