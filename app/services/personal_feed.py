"""A reader's "For you": the picks their digest would hold of the latest edition, on the site.

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

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.editions import latest_edition
from app.core.models import EditionKey, Frequency, Subscriber
from app.services.digests import latest_day_edition
from digest.due_rows import edition_for
from digest.ledger import Reader
from digest.run_inputs import Encode, edition_view
from digest.sections import reader_picks
from digest.selection import EditionView, Pick
from digest.tastes import Tastes
from search.searcher import Searcher

# How a caller keeps edition views between requests: given the key and how to build it.
ViewCache = Callable[[EditionKey, Callable[[], EditionView | None]], EditionView | None]


@dataclass(frozen=True, slots=True)
class PersonalPicks:
    # None when nothing is published yet.
    edition: EditionKey | None
    picks: list[Pick]
    followed_left_out: int = 0
    searched_left_out: int = 0


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
    )
