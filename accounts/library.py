"""A reader's library: the saved papers' named lists, read state and private notes, and "not
interested".

Every saved paper is on the reading list; a reader may also file it under one named list of
theirs (at most :data:`MAX_LISTS`, names of up to :data:`MAX_LIST_NAME` characters, at least
one of them visible, no two alike but for case or invisible characters: see
:mod:`app.core.names`). Deleting a list files its papers back under the reading list
alone: nothing saved is lost. A saved paper may carry a private note of up to
:data:`MAX_NOTE` characters, and be marked read. "Not interested" is a thumbs down that also
hides the paper from the reader's digest and "For you", and from the reading list while it
lasts: the saved paper keeps its list, read state and note, and is back as it was once a
thumbs is given again or the paper saved again. Whatever is refused is said in words
(:class:`LibraryRefusedError`) and changes nothing stored.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from accounts.reader import give_feedback, save
from app.core.models import DigestFeedback, ReadingList, SavedPaper, Subscriber
from app.core.names import comparison_key, is_visible, kept_form
from app.core.refusals import BadInput, NotFound

MAX_LISTS = 50
MAX_LIST_NAME = 80
MAX_NOTE = 2000


class LibraryRefusedError(BadInput, ValueError):
    """A list, note or filing that cannot be kept, said in words a reader can act on."""


class UnknownListError(NotFound, LookupError):
    """A list id that is not one of the reader's lists (answered 404)."""


def _no_control(text: str, what: str, allowed: str = "") -> None:
    if any(unicodedata.category(c) == "Cc" and c not in allowed for c in text):
        raise LibraryRefusedError(f"{what} holds no control characters")


def list_name(name: str) -> str:
    """The list's name as kept, or :class:`LibraryRefusedError` saying what is wrong."""
    _no_control(name, "a list's name")
    kept = kept_form(name)
    if not kept:
        raise LibraryRefusedError("a list needs a name")
    if not is_visible(kept):
        raise LibraryRefusedError(
            "a list's name needs a character that shows; this one holds only invisible ones"
        )
    if len(kept) > MAX_LIST_NAME:
        raise LibraryRefusedError(
            f"a list's name has at most {MAX_LIST_NAME} characters; this one has {len(kept)}"
        )
    return kept


def create_list(session: Session, subscriber: Subscriber, name: str, now: datetime) -> int:
    """A new list of the reader's; its id."""
    kept = list_name(name)
    lists = reader_lists(session, subscriber.id)
    for _, other in lists:
        if comparison_key(other) == comparison_key(kept):
            raise LibraryRefusedError(f"you have a list named “{other}” already")
    if len(lists) >= MAX_LISTS:
        raise LibraryRefusedError(f"you have {len(lists)} lists, the most a reader may")
    row = ReadingList(subscriber_id=subscriber.id, name=kept, created_at=now)
    session.add(row)
    session.flush()
    return row.id


def delete_list(session: Session, subscriber: Subscriber, list_id: int) -> None:
    """Delete one of the reader's lists; its papers stay on the reading list."""
    found = _own_list(session, subscriber, list_id)
    session.execute(
        update(SavedPaper)
        .where(SavedPaper.subscriber_id == subscriber.id, SavedPaper.list_id == list_id)
        .values(list_id=None)
    )
    session.delete(found)


def file_under(
    session: Session, subscriber: Subscriber, arxiv_id: str, list_id: int | None, now: datetime
) -> None:
    """File a paper under one of the reader's lists (None: the reading list alone), saving it
    first if it is not saved."""
    if list_id is not None:
        _own_list(session, subscriber, list_id)
    saved = _saved(session, subscriber, arxiv_id, now)
    saved.list_id = list_id


def mark_read(
    session: Session, subscriber: Subscriber, arxiv_id: str, read: bool, now: datetime
) -> None:
    """Mark a saved paper read (saving it first if need be) or unread."""
    saved = _saved(session, subscriber, arxiv_id, now)
    saved.read_at = now if read else None


def set_note(
    session: Session, subscriber: Subscriber, arxiv_id: str, note: str, now: datetime
) -> None:
    """The reader's private note on a saved paper (saving it first); empty: no note."""
    _no_control(note, "a note", allowed="\n\r\t")
    text = note.replace("\r\n", "\n").strip()
    if len(text) > MAX_NOTE:
        raise LibraryRefusedError(
            f"a note has at most {MAX_NOTE} characters; this one has {len(text)}"
        )
    saved = _saved(session, subscriber, arxiv_id, now)
    saved.note = text or None


def not_interested(session: Session, subscriber: Subscriber, arxiv_id: str, now: datetime) -> None:
    """A thumbs down that also hides the paper from the reader's picks and reading list.

    A saved paper stays stored as it is (list, read state, note): the reader's words are not
    theirs to lose by one button, and taking the hide back shows them again."""
    give_feedback(session, subscriber, arxiv_id, -1, now)
    feedback = session.get_one(DigestFeedback, (subscriber.id, arxiv_id))
    feedback.hidden = True


def hidden_ids(session: Session, subscriber_id: int) -> set[str]:
    """The papers the reader said they are not interested in."""
    query = select(DigestFeedback.arxiv_id).where(
        DigestFeedback.subscriber_id == subscriber_id, DigestFeedback.hidden.is_(True)
    )
    return set(session.scalars(query))


def reader_lists(session: Session, subscriber_id: int) -> list[tuple[int, str]]:
    """The reader's lists (id, name), by name."""
    rows = session.execute(
        select(ReadingList.id, ReadingList.name)
        .where(ReadingList.subscriber_id == subscriber_id)
        .order_by(func.lower(ReadingList.name), ReadingList.id)
    )
    return [(row.id, row.name) for row in rows]


def _own_list(session: Session, subscriber: Subscriber, list_id: int) -> ReadingList:
    found = session.get(ReadingList, list_id)
    if found is None or found.subscriber_id != subscriber.id:
        raise UnknownListError(f"list {list_id}")
    return found


def _saved(session: Session, subscriber: Subscriber, arxiv_id: str, now: datetime) -> SavedPaper:
    save(session, subscriber, arxiv_id, now)
    return session.get_one(SavedPaper, (subscriber.id, arxiv_id))
