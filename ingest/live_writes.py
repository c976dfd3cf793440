"""What live ingest writes besides papers: day listings, feed validators, withdrawn flags.

Papers themselves go through :func:`ingest.paper_writer.store_records`, which decides new, updated
or unchanged and writes them with plain statements; this module adds what only live sources
know.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.core.db import insert_plain_rows
from app.core.models import AnnouncementEntry, Base, FeedState, Paper
from ingest.paper_writer import StoreCounts, store_records
from ingest.records import PaperRecord

entries = Base.metadata.tables[AnnouncementEntry.__tablename__]
papers = Base.metadata.tables[Paper.__tablename__]
_ENTRY_COLUMNS = ("announced_on", "category", "arxiv_id", "announce_type")

# arXiv marks a withdrawal in the comment ("This paper has been withdrawn by the author") and
# often replaces the abstract with the same sentence. An abstract only counts when it opens so:
# elsewhere "is withdrawn" is ordinary prose ("blood is withdrawn from ...").
_WITHDRAWN_COMMENT = re.compile(r"\bwithdrawn\b", re.IGNORECASE)
_WITHDRAWN_ABSTRACT = re.compile(
    r"^\s*(?:withdrawn\b|this (?:paper|article|manuscript|submission|version) "
    r"(?:has been|is|was) withdrawn\b)",
    re.IGNORECASE,
)


def is_withdrawn(record: PaperRecord) -> bool:
    comment_says = bool(_WITHDRAWN_COMMENT.search(record.comment or ""))
    return comment_says or bool(_WITHDRAWN_ABSTRACT.match(record.abstract))


def store_papers(session: Session, records: Sequence[PaperRecord]) -> StoreCounts:
    """Store the records (see :mod:`ingest.paper_writer`) and flag the withdrawn ones."""
    counts = store_records(session, records)
    withdrawn = [record.arxiv_id for record in records if is_withdrawn(record)]
    if withdrawn:
        session.execute(
            update(papers).where(papers.c.arxiv_id.in_(withdrawn)).values(withdrawn=True)
        )
    return counts


def add_listing(
    session: Session, day: date, category: str, announce_types: Mapping[str, str]
) -> int:
    """Add papers to a category's listing of ``day``; returns how many it held before.

    Existing entries are never removed or changed, so a smaller feed never shrinks a listing.
    """
    before = listing_size(session, day, category)
    rows = [(day, category, arxiv_id, kind) for arxiv_id, kind in announce_types.items()]
    insert_plain_rows(session, entries, _ENTRY_COLUMNS, rows, skip_duplicates=True)
    return before


def listing_size(session: Session, day: date, category: str) -> int:
    query = select(func.count()).where(
        entries.c.announced_on == day, entries.c.category == category
    )
    return session.execute(query).scalar_one()


def latest_listing_day(session: Session) -> date | None:
    """The newest announcement day of any category's stored listing."""
    return session.execute(select(func.max(entries.c.announced_on))).scalar_one_or_none()


def listed_ids(session: Session, day: date, categories: Iterable[str]) -> list[str]:
    query = (
        select(entries.c.arxiv_id)
        .where(entries.c.announced_on == day, entries.c.category.in_(list(categories)))
        .distinct()
        .order_by(entries.c.arxiv_id)
    )
    return list(session.execute(query).scalars())


def missing_papers(session: Session, arxiv_ids: Iterable[str]) -> list[str]:
    wanted = sorted(set(arxiv_ids))
    stored = set(
        session.execute(select(papers.c.arxiv_id).where(papers.c.arxiv_id.in_(wanted))).scalars()
    )
    return [arxiv_id for arxiv_id in wanted if arxiv_id not in stored]


def feed_validators(session: Session, url: str) -> tuple[str | None, str | None]:
    state = session.get(FeedState, url)
    return (state.etag, state.last_modified) if state else (None, None)


def save_feed_validators(
    session: Session, url: str, etag: str | None, last_modified: str | None
) -> None:
    state = session.get(FeedState, url) or FeedState(url=url)
    state.etag, state.last_modified, state.fetched_at = etag, last_modified, datetime.now(UTC)
    session.add(state)
