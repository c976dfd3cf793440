"""Lists a group shares: a reader's named list made public at ``/lists/{slug}`` and edited
together by the co-editors the owner invites.

Sharing a list (:func:`share`) copies the papers the owner filed under it, with the owner's
notes, into the shared list; from then on the shared list's papers are its own, changed by its
owner and its editors (add, remove, note, rename), each change recorded with who made it
(:class:`ListChange`). A shared list is public once published, and private to its editors
while not: to anyone else an unpublished list, like one that does not exist, is
:class:`UnknownSharedListError` (answered 404), and so is a change asked by a reader who is
not one of its editors. The slug is drawn from the first title and kept through renames.

An invitation names an address; its mailed link is signed (:mod:`app.core.tokens`) and carries
the invitation's random ``invite_key``, so inviting the address again, or removing it, voids
the links mailed before. Only the reader signed in as that address can take it. What cannot
be kept is refused in words (:class:`LibraryRefusedError`) and changes nothing stored.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from accounts.library import (
    MAX_NOTE,
    LibraryRefusedError,
    list_name,
)
from app.core.models import (
    ListChange,
    ListChangeKind,
    ListEditor,
    Paper,
    ReadingList,
    SavedPaper,
    SharedList,
    SharedListPaper,
    Subscriber,
)
from app.core.names import is_visible, kept_form
from app.core.refusals import NotFound

MAX_DESCRIPTION = 300
MAX_SHOWN_NAME = 40
MAX_SLUG = 60
MAX_EDITORS = 20
# Paths under /lists that are pages of their own.
RESERVED_SLUGS = frozenset({"invitation"})
# One mail an hour at most to an address, however often its invitation is sent again.
REINVITE_AFTER = timedelta(hours=1)


class UnknownSharedListError(NotFound, LookupError):
    """A shared list this reader may not see or change, or none at all (answered 404)."""


def slug_of(title: str) -> str:
    """The URL words of a title: ASCII letters and digits joined by hyphens ("list" if none)."""
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    words = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    return words[:MAX_SLUG].rstrip("-") or "list"


def _free_slug(session: Session, title: str) -> str:
    base = slug_of(title)
    base = f"{base}-list" if base in RESERVED_SLUGS else base
    taken = set(session.scalars(select(SharedList.slug).where(SharedList.slug.like(f"{base}%"))))
    if base not in taken:
        return base
    return next(f"{base}-{n}" for n in range(2, len(taken) + 3) if f"{base}-{n}" not in taken)


def _text(text: str, what: str, most: int, lines: bool = False) -> str:
    allowed = "\n\r\t" if lines else ""
    if any(unicodedata.category(c) == "Cc" and c not in allowed for c in text):
        raise LibraryRefusedError(f"{what} holds no control characters")
    kept = text.replace("\r\n", "\n").strip() if lines else kept_form(text)
    if len(kept) > most:
        raise LibraryRefusedError(f"{what} has at most {most} characters; this one has {len(kept)}")
    return kept


def shown_name(text: str) -> str:
    """The name a reader shows on a list ("" for none), or :class:`LibraryRefusedError`."""
    kept = _text(text, "a shown name", MAX_SHOWN_NAME)
    if kept and (not is_visible(kept) or "@" in kept):
        raise LibraryRefusedError("a shown name needs a visible character and no address")
    return kept


def description(text: str) -> str:
    return _text(text, "a description", MAX_DESCRIPTION, lines=True)


def note(text: str) -> str | None:
    return _text(text, "a note", MAX_NOTE, lines=True) or None


def share(
    session: Session, owner: Subscriber, list_id: int, wording: tuple[str, str, str], now: datetime
) -> SharedList:
    """Share (or update) one of the owner's lists: ``wording`` is its title, description and
    the owner's shown name. The first time, the papers filed under it come with their notes."""
    title, about, name = list_name(wording[0]), description(wording[1]), shown_name(wording[2])
    own = session.get(ReadingList, list_id)
    if own is None or own.subscriber_id != owner.id:
        raise UnknownSharedListError(f"list {list_id}")
    shared = session.get(SharedList, list_id)
    if shared is None:
        slug = _free_slug(session, title)
        shared = SharedList(list_id=list_id, slug=slug, title=title, created_at=now)
        session.add(shared)
        session.flush()
        _copy_filed(session, owner, list_id, now)
    elif shared.title != title:
        _record(session, shared, owner, ListChangeKind.RENAMED, title, now)
    shared.title, shared.description, shared.owner_name = title, about, name
    return shared


def _copy_filed(session: Session, owner: Subscriber, list_id: int, now: datetime) -> None:
    filed = session.scalars(
        select(SavedPaper).where(
            SavedPaper.subscriber_id == owner.id, SavedPaper.list_id == list_id
        )
    )
    for saved in filed:
        session.add(
            SharedListPaper(
                list_id=list_id,
                arxiv_id=saved.arxiv_id,
                note=saved.note,
                added_by=owner.id,
                added_at=saved.saved_at,
            )
        )


def owner_of(shared: SharedList, session: Session) -> int:
    return session.get_one(ReadingList, shared.list_id).subscriber_id


def by_slug(session: Session, slug: str) -> SharedList:
    found = session.scalars(select(SharedList).where(SharedList.slug == slug)).first()
    if found is None:
        raise UnknownSharedListError(f"list {slug}")
    return found


def may_edit(session: Session, shared: SharedList, reader_id: int | None) -> bool:
    """Whether the reader is the list's owner or one of its editors who took the invitation."""
    if reader_id is None:
        return False
    if owner_of(shared, session) == reader_id:
        return True
    joined = select(ListEditor).where(
        ListEditor.list_id == shared.list_id,
        ListEditor.subscriber_id == reader_id,
        ListEditor.joined_at.is_not(None),
    )
    return session.scalars(joined).first() is not None


def editable(session: Session, reader: Subscriber, slug: str) -> SharedList:
    """The shared list, if the reader may change it; else 404, as if it were not there."""
    shared = by_slug(session, slug)
    if not may_edit(session, shared, reader.id):
        raise UnknownSharedListError(f"list {slug}")
    return shared


def owned(session: Session, reader: Subscriber, slug: str) -> SharedList:
    shared = by_slug(session, slug)
    if owner_of(shared, session) != reader.id:
        raise UnknownSharedListError(f"list {slug}")
    return shared


def publish(session: Session, owner: Subscriber, slug: str, shown: bool, now: datetime) -> None:
    """Publish the list (``shown``) or take it back among its editors."""
    shared = owned(session, owner, slug)
    if not shown:
        shared.published_at = None
    elif shared.published_at is None:
        shared.published_at = now


def show_notes(session: Session, owner: Subscriber, slug: str, shown: bool) -> None:
    owned(session, owner, slug).show_notes = shown


def _record(
    session: Session,
    shared: SharedList,
    who: Subscriber,
    kind: ListChangeKind,
    subject: str,
    now: datetime,
) -> None:
    session.add(
        ListChange(
            list_id=shared.list_id, changed_by=who.id, kind=kind, subject=subject, changed_at=now
        )
    )


def add_paper(
    session: Session, reader: Subscriber, slug: str, arxiv_id: str, now: datetime
) -> bool:
    """Put a stored paper on the list (again: nothing changes); whether it was added."""
    shared = editable(session, reader, slug)
    if session.get(Paper, arxiv_id) is None:
        raise LookupError(f"paper {arxiv_id}")
    if session.get(SharedListPaper, (shared.list_id, arxiv_id)) is not None:
        return False
    session.add(
        SharedListPaper(list_id=shared.list_id, arxiv_id=arxiv_id, added_by=reader.id, added_at=now)
    )
    session.flush()  # a second add at once is refused here, and its unit of work runs again
    _record(session, shared, reader, ListChangeKind.ADDED, arxiv_id, now)
    return True


def _listed(session: Session, shared: SharedList, arxiv_id: str) -> SharedListPaper:
    found = session.get(SharedListPaper, (shared.list_id, arxiv_id))
    if found is None:
        raise LookupError(f"paper {arxiv_id} on this list")
    return found


def remove_paper(
    session: Session, reader: Subscriber, slug: str, arxiv_id: str, now: datetime
) -> None:
    shared = editable(session, reader, slug)
    session.delete(_listed(session, shared, arxiv_id))
    _record(session, shared, reader, ListChangeKind.REMOVED, arxiv_id, now)


def set_note(
    session: Session, reader: Subscriber, slug: str, arxiv_id: str, text: str, now: datetime
) -> None:
    kept = note(text)
    shared = editable(session, reader, slug)
    _listed(session, shared, arxiv_id).note = kept
    _record(session, shared, reader, ListChangeKind.NOTE, arxiv_id, now)


def rename(session: Session, reader: Subscriber, slug: str, title: str, now: datetime) -> None:
    kept = list_name(title)
    shared = editable(session, reader, slug)
    if kept != shared.title:
        shared.title = kept
        _record(session, shared, reader, ListChangeKind.RENAMED, kept, now)


def mirror_filing(
    session: Session, owner: Subscriber, list_id: int | None, arxiv_id: str, now: datetime
) -> None:
    """A paper the owner files under a shared list of theirs goes on the shared list too."""
    shared = None if list_id is None else session.get(SharedList, list_id)
    if shared is not None:
        add_paper(session, owner, shared.slug, arxiv_id, now)


def invite(session: Session, owner: Subscriber, slug: str, email_key: str, now: datetime) -> str:
    """Invite an address to co-edit (again: a new key voids the links mailed before); the
    invitation's key, which its link carries."""
    shared = owned(session, owner, slug)
    if email_key == owner.email_key:
        raise LibraryRefusedError("you edit this list already: it is yours")
    found = session.get(ListEditor, (shared.list_id, email_key))
    if found is None:
        count = len(editors(session, shared))
        if count >= MAX_EDITORS:
            raise LibraryRefusedError(f"a list has at most {MAX_EDITORS} editors")
        found = ListEditor(list_id=shared.list_id, email_key=email_key, invited_at=now)
        session.add(found)
    elif found.invite_key and now - found.invited_at < REINVITE_AFTER:
        raise LibraryRefusedError("that address was invited within the hour; its link still works")
    found.invite_key, found.invited_at = secrets.token_hex(16), now
    return found.invite_key


def accept(
    session: Session, reader: Subscriber, invitation: tuple[int, str], name: str, now: datetime
) -> SharedList:
    """Take the invitation (list id, invite key) mailed to the reader's own address."""
    list_id, key = invitation
    kept = shown_name(name)
    found = session.get(ListEditor, (list_id, reader.email_key))
    if found is None or not secrets.compare_digest(found.invite_key, key):
        raise LibraryRefusedError("this invitation was withdrawn or sent again since")
    found.subscriber_id, found.display_name = reader.id, kept
    found.joined_at = found.joined_at or now
    return session.get_one(SharedList, list_id)


def remove_editor(session: Session, owner: Subscriber, slug: str, email_key: str) -> None:
    shared = owned(session, owner, slug)
    found = session.get(ListEditor, (shared.list_id, email_key))
    if found is None:
        raise LookupError(f"editor of list {slug}")
    session.delete(found)


def editors(session: Session, shared: SharedList) -> list[ListEditor]:
    query = select(ListEditor).where(ListEditor.list_id == shared.list_id)
    return list(session.scalars(query.order_by(ListEditor.invited_at)))
