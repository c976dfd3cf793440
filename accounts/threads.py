"""A paper's discussion as readers see it (reads only): a thread's top comments a page at a
time with their replies, counts for cards, the site's recent comments and a reader's own.

Everyone sees ``shown`` comments; a comment's author also sees theirs that wait for a
moderator or were hidden (marked so); a deleted comment keeps its place, without text or
name, where replies hang under it. A name is the display name its reader chose, "deleted
reader" once the account is gone, never an address. A comment by the paper's verified
author (their claimed person is one of the paper's people) says so.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.orm import Session

from app.core.models import Comment, Commenter, CommentState, PaperPerson, Subscriber

PAGE = 50
DELETED_READER = "deleted reader"


@dataclass(frozen=True, slots=True)
class ShownComment:
    id: int
    arxiv_id: str
    parent_id: int | None
    name: str
    paper_author: bool
    html: str
    body: str  # the Markdown as written, for its author's edit form
    state: CommentState
    created_at: datetime
    edited_at: datetime | None
    mine: bool


@dataclass(frozen=True, slots=True)
class TopComment:
    comment: ShownComment
    replies: tuple[ShownComment, ...]


@dataclass(frozen=True, slots=True)
class Thread:
    arxiv_id: str
    comments: tuple[TopComment, ...]
    count: int  # comments everyone sees, replies included
    page: int
    pages: int


def _seen_by(viewer: int | None) -> ColumnElement[bool]:
    public = Comment.state.in_([CommentState.SHOWN, CommentState.DELETED])
    return public if viewer is None else or_(public, Comment.subscriber_id == viewer)


def _shown(session: Session, where: ColumnElement[bool], viewer: int | None) -> list[ShownComment]:
    rows = session.execute(
        select(Comment, Commenter.display_name, Subscriber.claimed_person)
        .outerjoin(Commenter, Commenter.subscriber_id == Comment.subscriber_id)
        .outerjoin(
            Subscriber,
            and_(Subscriber.id == Comment.subscriber_id, Subscriber.claim_verified_at.is_not(None)),
        )
        .where(where)
        .order_by(Comment.id)
    ).all()
    authors = _paper_people(session, {row.Comment.arxiv_id for row in rows})
    return [
        ShownComment(
            id=row.Comment.id,
            arxiv_id=row.Comment.arxiv_id,
            parent_id=row.Comment.parent_id,
            name=row.display_name or DELETED_READER,
            paper_author=row.claimed_person in authors.get(row.Comment.arxiv_id, ()),
            html=row.Comment.html,
            body=row.Comment.body,
            state=row.Comment.state,
            created_at=row.Comment.created_at,
            edited_at=row.Comment.edited_at,
            mine=viewer is not None and row.Comment.subscriber_id == viewer,
        )
        for row in rows
    ]


def _paper_people(session: Session, arxiv_ids: Iterable[str]) -> dict[str, set[int]]:
    found: dict[str, set[int]] = defaultdict(set)
    rows = session.execute(
        select(PaperPerson.arxiv_id, PaperPerson.person_id).where(
            PaperPerson.arxiv_id.in_(list(arxiv_ids))
        )
    )
    for arxiv_id, person in rows:
        found[arxiv_id].add(person)
    return found


def thread(session: Session, arxiv_id: str, viewer: int | None, page: int = 1) -> Thread:
    """The ``page``-th ``PAGE`` top comments of the paper (oldest first), with all replies."""
    tops = and_(Comment.arxiv_id == arxiv_id, Comment.parent_id.is_(None), _seen_by(viewer))
    total = session.scalar(select(func.count()).select_from(Comment).where(tops)) or 0
    pages = max(1, -(-total // PAGE))
    ids = list(
        session.scalars(
            select(Comment.id)
            .where(tops)
            .order_by(Comment.id)
            .offset((page - 1) * PAGE)
            .limit(PAGE)
        )
    )
    shown = _shown(
        session,
        and_(or_(Comment.id.in_(ids), Comment.parent_id.in_(ids)), _seen_by(viewer)),
        viewer,
    )
    replies: dict[int, list[ShownComment]] = defaultdict(list)
    for one in shown:
        if one.parent_id is not None:
            replies[one.parent_id].append(one)
    comments = tuple(
        TopComment(one, tuple(replies[one.id])) for one in shown if one.parent_id is None
    )
    total_shown = counts(session, [arxiv_id]).get(arxiv_id, 0)
    return Thread(arxiv_id, comments, count=total_shown, page=page, pages=pages)


def counts(session: Session, arxiv_ids: Sequence[str]) -> dict[str, int]:
    """How many comments everyone sees on each paper (those with none are left out)."""
    if not arxiv_ids:
        return {}
    rows = session.execute(
        select(Comment.arxiv_id, func.count())
        .where(Comment.arxiv_id.in_(list(arxiv_ids)), Comment.state == CommentState.SHOWN)
        .group_by(Comment.arxiv_id)
    )
    return {str(row[0]): int(row[1]) for row in rows}


def recent(session: Session, arxiv_id: str | None, limit: int) -> list[ShownComment]:
    """The newest comments everyone sees, of one paper or of the whole site."""
    where = Comment.state == CommentState.SHOWN
    if arxiv_id is not None:
        where = and_(where, Comment.arxiv_id == arxiv_id)
    newest = select(Comment.id).where(where).order_by(Comment.id.desc()).limit(limit)
    found = _shown(session, Comment.id.in_(newest.scalar_subquery()), None)
    return sorted(found, key=lambda one: one.id, reverse=True)


def one(session: Session, comment_id: int, viewer: int | None) -> ShownComment | None:
    found = _shown(session, and_(Comment.id == comment_id, _seen_by(viewer)), viewer)
    return found[0] if found else None


def of_reader(session: Session, subscriber_id: int) -> list[dict[str, object]]:
    """Every comment of the reader's, as their data export holds it."""
    rows = session.scalars(
        select(Comment).where(Comment.subscriber_id == subscriber_id).order_by(Comment.id)
    )
    return [
        {
            "id": row.id,
            "arxiv_id": row.arxiv_id,
            "reply_to": row.parent_id,
            "markdown": row.body,
            "state": row.state.value,
            "created_at": row.created_at.isoformat(),
            "edited_at": row.edited_at.isoformat() if row.edited_at else None,
        }
        for row in rows
    ]


def comment_times(session: Session, since: datetime, until: datetime) -> list[tuple[str, datetime]]:
    """Each comment everyone sees posted after ``since`` up to ``until``: its paper and when
    (the papers a digest says were discussed)."""
    rows = session.execute(
        select(Comment.arxiv_id, Comment.created_at).where(
            Comment.state == CommentState.SHOWN,
            Comment.created_at > since,
            Comment.created_at <= until,
        )
    )
    return [(str(arxiv_id), created_at) for arxiv_id, created_at in rows]
