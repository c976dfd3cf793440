"""The signed-in reader's library: named lists, filing, read state, notes and "not
interested", each one action in its own unit of work (:func:`app.services.readers.as_reader`).

What cannot be kept is refused with the reason (``LibraryRefusedError``, a :class:`BadInput`);
a list or paper that is not the reader's is :class:`NotFound`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from accounts import library, shared_lists
from accounts.library import MAX_LIST_NAME, MAX_NOTE
from app.core.models import Subscriber
from app.services.readers import as_reader
from app.services.reports import Deployment

__all__ = ["MAX_LIST_NAME", "MAX_NOTE"]


def create_list(site: Deployment, email_key: str, name: str) -> int:
    """A new list of the reader's; its id."""
    return as_reader(
        site, email_key, lambda session, found, now: library.create_list(session, found, name, now)
    )


def delete_list(site: Deployment, email_key: str, list_id: int) -> None:
    """Delete one of the reader's lists; its papers stay on the reading list."""
    as_reader(
        site, email_key, lambda session, found, now: library.delete_list(session, found, list_id)
    )


def file_paper(site: Deployment, email_key: str, arxiv_id: str, list_id: int | None) -> None:
    """File the paper under one of the reader's lists (None: the reading list alone); a list
    the reader shares gains the paper too."""

    def step(session: Session, found: Subscriber, now: datetime) -> None:
        library.file_under(session, found, arxiv_id, list_id, now)
        shared_lists.mirror_filing(session, found, list_id, arxiv_id, now)

    as_reader(site, email_key, step)


def mark_read(site: Deployment, email_key: str, arxiv_id: str, *, read: bool) -> None:
    as_reader(
        site,
        email_key,
        lambda session, found, now: library.mark_read(session, found, arxiv_id, read, now),
    )


def set_note(site: Deployment, email_key: str, arxiv_id: str, text: str) -> None:
    as_reader(
        site,
        email_key,
        lambda session, found, now: library.set_note(session, found, arxiv_id, text, now),
    )


def not_interested(site: Deployment, email_key: str, arxiv_id: str) -> None:
    """A thumbs down that also hides the paper from the reader's picks and reading list."""
    as_reader(
        site,
        email_key,
        lambda session, found, now: library.not_interested(session, found, arxiv_id, now),
    )
