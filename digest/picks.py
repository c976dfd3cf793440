"""One reader's picks of an edition: the one selection the digest and the site's "For you" share.

The digest run and the web page both call :func:`reader_picks` with the edition as the
selection sees it and the run's (or the request's) tastes, so a reader sees on the site what
their digest of that edition holds, in the same order and with the same reasons.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.core.config import Settings
from digest.ledger import Reader
from digest.selection import EditionView, Pick, select
from digest.tastes import Tastes


def reader_picks(
    settings: Settings, session: Session, reader: Reader, view: EditionView, tastes: Tastes
) -> list[Pick]:
    """The reader's picks of ``view``, best first, each with why."""
    return select(
        view,
        tastes.of(session, reader),
        max_per_topic=settings.diversity_max_per_topic,
        exclusion_cosine=settings.digest_exclusion_cosine,
    )
