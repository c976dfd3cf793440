"""What the signed-in reader's pages read: their row, saves, thumbs and lists, their private
feed's key, the saved searches and the papers' vote totals (reads only; the actions are in
:mod:`app.services.readers` and :mod:`app.services.library`).
"""

from __future__ import annotations

from digest.accounts import library, reader, signin, votes
from digest.accounts.library import MAX_LIST_NAME, MAX_NOTE
from digest.accounts.saved_searches import MAX_SAVED, saved_rows

__all__ = [
    "MAX_LIST_NAME",
    "MAX_NOTE",
    "MAX_SAVED",
    "library",
    "reader",
    "saved_rows",
    "signin",
    "votes",
]
