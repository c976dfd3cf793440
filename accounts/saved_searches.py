"""Searches a signed-in reader follows: each is a section of their digest ("New for …") and
has feeds of its own (``/search/feed.*``).

A saved search is its words (``-word`` exclusions included) and a category or none; dates
are left out, since a followed search is about what comes next. A reader keeps at most
:data:`MAX_SAVED` of up to :data:`MAX_QUERY` characters; past either, or with no word to
search for (words that show: see :mod:`app.core.names`), saving is refused in words and
nothing stored changes. Saving one already kept changes nothing, and so does saving it again
spelled in other case or with invisible characters: it is the same search.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.core.models import SavedSearch, Subscriber
from app.core.names import comparison_key, is_visible, kept_form
from app.core.refusals import BadInput
from search.excluded_words import TooManyExcludedError, split_query

MAX_SAVED = 20
MAX_QUERY = 200
# arXiv's category names: "cs.LG", "math.CO", "hep-th", "astro-ph.GA".
CATEGORY = re.compile(r"^[a-z][a-z-]{0,19}(\.[A-Za-z][A-Za-z-]{0,19})?$")


class SavedSearchRefusedError(BadInput, ValueError):
    """A search that cannot be saved, said in words a reader can act on."""


@dataclass(frozen=True, slots=True)
class SavedQuery:
    """A saved search as the digest runs it."""

    query: str
    category: str = ""  # empty: every category

    @property
    def label(self) -> str:
        return f"{self.query} (in {self.category})" if self.category else self.query


def checked(query: str, category: str) -> SavedQuery:
    """The search as it is kept, or :class:`SavedSearchRefusedError` saying what is wrong."""
    text = kept_form(query)
    if any(unicodedata.category(character) == "Cc" for character in text):
        raise SavedSearchRefusedError("a saved search holds no control characters")
    if len(text) > MAX_QUERY:
        raise SavedSearchRefusedError(
            f"a saved search has at most {MAX_QUERY} characters; this one has {len(text)}"
        )
    try:
        words = split_query(text).words
    except TooManyExcludedError as error:
        raise SavedSearchRefusedError(str(error)) from None
    if not words:
        raise SavedSearchRefusedError("a saved search needs a word to search for")
    if not is_visible(words):
        raise SavedSearchRefusedError(
            "a saved search needs a word that shows; this one holds only invisible characters"
        )
    category = category.strip()
    if category and not CATEGORY.match(category):
        raise SavedSearchRefusedError(f"{category[:40]!r} is not an arXiv category (cs.LG)")
    return SavedQuery(text, category)


def save_search(
    session: Session, subscriber: Subscriber, query: str, category: str, now: datetime
) -> None:
    """Keep the search for the reader (kept already: nothing changes)."""
    asked = checked(query, category)
    kept = searches_of(session, subscriber.id)
    if any(_same(asked, saved) for saved in kept):
        return
    if len(kept) >= MAX_SAVED:
        raise SavedSearchRefusedError(
            f"you follow {len(kept)} searches, the most a reader may: remove one first"
        )
    row = SavedSearch(
        subscriber_id=subscriber.id, query=asked.query, category=asked.category, saved_at=now
    )
    session.add(row)
    session.flush()


def _same(one: SavedQuery, other: SavedQuery) -> bool:
    """Whether two searches are one to a reader: the same words but for case and invisible
    characters, in the same category."""
    same_words = comparison_key(one.query) == comparison_key(other.query)
    return same_words and one.category == other.category


def forget_search(session: Session, subscriber: Subscriber, search_id: int) -> None:
    """Stop following one of the reader's searches (another reader's id changes nothing)."""
    session.execute(
        delete(SavedSearch).where(
            SavedSearch.id == search_id, SavedSearch.subscriber_id == subscriber.id
        )
    )


def kept_as(session: Session, subscriber_id: int, query: str, category: str) -> int | None:
    """The id of the reader's saved search that is this search to them, or None."""
    asked = SavedQuery(kept_form(query), category.strip())
    kept = saved_rows(session, subscriber_id)
    return next((ident for ident, saved in kept if _same(asked, saved)), None)


def searches_of(session: Session, subscriber_id: int) -> list[SavedQuery]:
    """The reader's saved searches, oldest first."""
    return [query for _, query in saved_rows(session, subscriber_id)]


def saved_rows(session: Session, subscriber_id: int) -> list[tuple[int, SavedQuery]]:
    """The reader's saved searches with their ids, oldest first."""
    rows = session.execute(
        select(SavedSearch.id, SavedSearch.query, SavedSearch.category)
        .where(SavedSearch.subscriber_id == subscriber_id)
        .order_by(SavedSearch.saved_at, SavedSearch.id)
    )
    return [(row.id, SavedQuery(row.query, row.category)) for row in rows]


def all_searches(session: Session, only: int | None = None) -> dict[int, list[SavedQuery]]:
    """Every reader's saved searches (or one reader's), oldest first, by subscriber id."""
    query = select(SavedSearch.subscriber_id, SavedSearch.query, SavedSearch.category)
    if only is not None:
        query = query.where(SavedSearch.subscriber_id == only)
    found: dict[int, list[SavedQuery]] = defaultdict(list)
    for row in session.execute(query.order_by(SavedSearch.saved_at, SavedSearch.id)):
        found[row.subscriber_id].append(SavedQuery(row.query, row.category))
    return dict(found)
