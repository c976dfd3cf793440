"""What the signed-in reader's pages read: their row, saves, thumbs and lists, their private
feed's key, the saved searches and the papers' vote totals (reads only; the actions are in
:mod:`app.services.readers` and :mod:`app.services.library`).
"""

from __future__ import annotations

from accounts.library import MAX_LIST_NAME, MAX_NOTE, reader_lists
from accounts.reader import (
    WEB_DEFAULTS,
    feed_reader,
    feed_token,
    feedback_of,
    on_reading_list,
    saved_ids,
)
from accounts.reader import find as find_reader
from accounts.reader import saved_rows as saved_papers
from accounts.saved_searches import MAX_SAVED, saved_rows
from accounts.signin import voter
from accounts.votes import totals as vote_totals

__all__ = [
    "MAX_LIST_NAME",
    "MAX_NOTE",
    "MAX_SAVED",
    "WEB_DEFAULTS",
    "feed_reader",
    "feed_token",
    "feedback_of",
    "find_reader",
    "on_reading_list",
    "reader_lists",
    "saved_ids",
    "saved_papers",
    "saved_rows",
    "vote_totals",
    "voter",
]
