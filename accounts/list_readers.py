"""Reading a shared list: its page (what each viewer may see), following a published list,
copying it into one's own lists, the papers followed lists gained for a digest, and what a
reader's data export says of their shared lists, follows and editor roles.

A published list shows its papers to everyone, with notes only where the owner chose to show
them; its editors see its notes always, and an unpublished list is theirs alone. Who made a
change is said by the name they show on the list, or "an editor": never an address.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from accounts.library import LibraryRefusedError, create_list, list_name, reader_lists
from accounts.reader import save
from accounts.shared_lists import (
    UnknownSharedListError,
    by_slug,
    editors,
    may_edit,
    owner_of,
)
from app.core.models import (
    ListChange,
    ListChangeKind,
    ListEditor,
    ListFollow,
    Paper,
    ReadingList,
    SavedPaper,
    SharedList,
    SharedListPaper,
    Subscriber,
)
from app.core.names import comparison_key

AN_EDITOR = "an editor"
CHANGES_SHOWN = 20


@dataclass(frozen=True, slots=True)
class ListedPaper:
    paper: Paper
    note: str | None
    added_by: str
    added_at: datetime


@dataclass(frozen=True, slots=True)
class ShownChange:
    who: str
    kind: ListChangeKind
    subject: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Invited:
    email_key: str
    display_name: str
    joined: bool


@dataclass(frozen=True, slots=True)
class ListView:
    """A shared list as one viewer may see it (``editors``: the owner's view only)."""

    shared: SharedList
    papers: list[ListedPaper]
    changes: list[ShownChange]
    followers: int
    can_edit: bool
    is_owner: bool
    following: bool
    editors: list[Invited]


def shown_names(session: Session, shared: SharedList) -> dict[int, str]:
    """The name each of the list's editors shows (the owner's included), by reader id."""
    names = {owner_of(shared, session): shared.owner_name}
    for editor in editors(session, shared):
        if editor.subscriber_id is not None:
            names[editor.subscriber_id] = editor.display_name
    return names


def _who(names: dict[int, str], reader_id: int | None) -> str:
    return (names.get(reader_id) if reader_id is not None else None) or AN_EDITOR


def visible(session: Session, slug: str, reader_id: int | None) -> SharedList:
    """The list if published or the reader edits it; else 404, as if it were not there."""
    shared = by_slug(session, slug)
    if shared.published_at is None and not may_edit(session, shared, reader_id):
        raise UnknownSharedListError(f"list {slug}")
    return shared


def listed_papers(session: Session, shared: SharedList, with_notes: bool) -> list[ListedPaper]:
    """The list's papers, newest added first."""
    names = shown_names(session, shared)
    rows = session.execute(
        select(SharedListPaper, Paper)
        .join(Paper, Paper.arxiv_id == SharedListPaper.arxiv_id)
        .where(SharedListPaper.list_id == shared.list_id)
        .order_by(SharedListPaper.added_at.desc(), SharedListPaper.arxiv_id)
    )
    return [
        ListedPaper(
            paper=paper,
            note=row.note if with_notes else None,
            added_by=_who(names, row.added_by),
            added_at=row.added_at,
        )
        for row, paper in rows
    ]


def list_view(session: Session, slug: str, reader_id: int | None) -> ListView:
    shared = visible(session, slug, reader_id)
    can_edit = may_edit(session, shared, reader_id)
    is_owner = reader_id is not None and owner_of(shared, session) == reader_id
    return ListView(
        shared=shared,
        papers=listed_papers(session, shared, can_edit or shared.show_notes),
        changes=_changes(session, shared),
        followers=_count(session, shared),
        can_edit=can_edit,
        is_owner=is_owner,
        following=reader_id is not None
        and session.get(ListFollow, (shared.list_id, reader_id)) is not None,
        editors=[
            Invited(row.email_key, row.display_name, row.joined_at is not None)
            for row in editors(session, shared)
        ]
        if is_owner
        else [],
    )


def _changes(session: Session, shared: SharedList) -> list[ShownChange]:
    names = shown_names(session, shared)
    rows = session.scalars(
        select(ListChange)
        .where(ListChange.list_id == shared.list_id)
        .order_by(ListChange.id.desc())
        .limit(CHANGES_SHOWN)
    )
    return [
        ShownChange(who=_who(names, r.changed_by), kind=r.kind, subject=r.subject, at=r.changed_at)
        for r in rows
    ]


def _count(session: Session, shared: SharedList) -> int:
    query = select(func.count()).where(ListFollow.list_id == shared.list_id)
    return session.scalar(query) or 0


def follow(session: Session, reader: Subscriber, slug: str, follows: bool, now: datetime) -> None:
    """Follow a published list (its new papers come in the reader's digest), or stop."""
    shared = visible(session, slug, reader.id)
    found = session.get(ListFollow, (shared.list_id, reader.id))
    if follows and found is None:
        session.add(ListFollow(list_id=shared.list_id, subscriber_id=reader.id, followed_at=now))
        session.flush()
    elif not follows and found is not None:
        session.delete(found)


def copy(session: Session, reader: Subscriber, slug: str, now: datetime) -> int:
    """Copy a list the reader may see into a new list of their own; its id. A paper the reader
    has filed under another list already stays there (a saved paper is under one list)."""
    shared = visible(session, slug, reader.id)
    taken = {comparison_key(name) for _, name in reader_lists(session, reader.id)}
    name = next(n for n in _copy_names(shared.title) if comparison_key(n) not in taken)
    list_id = create_list(session, reader, name, now)
    for listed in listed_papers(session, shared, shared.show_notes):
        save(session, reader, listed.paper.arxiv_id, now)
        saved = session.get_one(SavedPaper, (reader.id, listed.paper.arxiv_id))
        saved.list_id = saved.list_id or list_id
        saved.note = saved.note or listed.note
    return list_id


def _copy_names(title: str) -> list[str]:
    names = [title, *(f"{title} (copy {n})" for n in range(2, 60))]
    kept = []
    for name in names:
        try:
            kept.append(list_name(name))
        except LibraryRefusedError:
            kept.append(list_name(name[-80:]))
    return kept


@dataclass(frozen=True, slots=True)
class ListNews:
    """The papers a followed list gained since a time, newest first, with when each came."""

    title: str
    slug: str
    added: tuple[tuple[str, datetime], ...]


def list_news(session: Session, since: datetime, only: int | None) -> dict[int, list[ListNews]]:
    """For each follower (``only``: one), each published list they follow that gained papers
    since ``since``."""
    query = (
        select(
            ListFollow.subscriber_id,
            SharedList.title,
            SharedList.slug,
            SharedListPaper.arxiv_id,
            SharedListPaper.added_at,
        )
        .join(SharedList, SharedList.list_id == ListFollow.list_id)
        .join(SharedListPaper, SharedListPaper.list_id == ListFollow.list_id)
        .where(SharedList.published_at.is_not(None), SharedListPaper.added_at > since)
        .order_by(SharedList.title, SharedListPaper.added_at.desc())
    )
    if only is not None:
        query = query.where(ListFollow.subscriber_id == only)
    gathered: dict[int, dict[tuple[str, str], list[tuple[str, datetime]]]] = defaultdict(dict)
    for row in session.execute(query):
        paper = (row.arxiv_id, row.added_at)
        gathered[row.subscriber_id].setdefault((row.title, row.slug), []).append(paper)
    return {
        reader: [ListNews(title, slug, tuple(added)) for (title, slug), added in lists.items()]
        for reader, lists in gathered.items()
    }


def export_of(session: Session, reader: Subscriber) -> dict[str, object]:
    """What a reader's data export says of their shared lists, follows and editor roles."""
    own = select(SharedList).join(ReadingList, ReadingList.id == SharedList.list_id)
    shared = session.scalars(own.where(ReadingList.subscriber_id == reader.id))
    followed = select(SharedList.slug).join(ListFollow, ListFollow.list_id == SharedList.list_id)
    roles = select(SharedList.slug, ListEditor.display_name, ListEditor.joined_at).join(
        ListEditor, ListEditor.list_id == SharedList.list_id
    )
    return {
        "shared_lists": [
            {
                "list_id": row.list_id,
                "slug": row.slug,
                "title": row.title,
                "description": row.description,
                "show_notes": row.show_notes,
                "shown_name": row.owner_name,
                "published": row.published_at is not None,
            }
            for row in shared
        ],
        "followed_lists": list(
            session.scalars(followed.where(ListFollow.subscriber_id == reader.id))
        ),
        "list_editor_of": [
            {"slug": r.slug, "shown_name": r.display_name, "joined": r.joined_at is not None}
            for r in session.execute(roles.where(ListEditor.subscriber_id == reader.id))
        ],
    }
