"""Write batches of :class:`PaperRecord` into the database: insert, update or skip each paper.

The decision is :mod:`ingest.merge`'s; this module reads the stored state of a batch in one
query, plans the batch record by record (:func:`plan_batch`) and writes the plan with plain
SQLAlchemy Core statements. Every source stores papers through :func:`store_records` (the RSS
listing, the arXiv API, OAI-PMH, Hugging Face's missing papers). A bulk import stores through
:mod:`ingest.bulk.batch_writer`, which shares the plan and the update statements and writes new rows
faster; both give the same rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import Table, bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session

from app.core.db import insert_plain_rows
from app.core.models import Author, Base, Paper, PaperAuthor, PaperCategory
from app.core.names import author_keys
from ingest.merge import Action, StoredState, decide, state_after
from ingest.records import PaperRecord

papers = Base.metadata.tables[Paper.__tablename__]
authors = Base.metadata.tables[Author.__tablename__]
paper_authors = Base.metadata.tables[PaperAuthor.__tablename__]
paper_categories = Base.metadata.tables[PaperCategory.__tablename__]

# Fields a record may lack; the stored value is kept then (see ingest.merge).
FILLABLE = (
    "primary_category",
    "comment",
    "journal_ref",
    "doi",
    "license",
    "submitted_at",
    "updated_at",
)
# The columns of a new paper's row that come straight from a record field of the same name.
PAPER_FIELDS = (
    "arxiv_id",
    "version",
    "title",
    "abstract",
    "primary_category",
    "comment",
    "journal_ref",
    "doi",
    "license",
    "submitted_at",
    "updated_at",
    "announced_on",
)


@dataclass(frozen=True, slots=True)
class StoreCounts:
    new: int = 0
    updated: int = 0
    unchanged: int = 0

    def __add__(self, other: StoreCounts) -> StoreCounts:
        return StoreCounts(
            self.new + other.new, self.updated + other.updated, self.unchanged + other.unchanged
        )


class PreparedRecord(NamedTuple):
    """One record with what storing it needs: its content hash and its authors' keys."""

    record: PaperRecord
    content_hash: str
    author_keys: tuple[str, ...]


def prepare(record: PaperRecord) -> PreparedRecord:
    return PreparedRecord(record, record.content_hash(), author_keys(record.authors))


@dataclass(frozen=True, slots=True)
class Updates:
    """Changes to papers already stored: rows for :data:`UPDATE_PAPER` and
    :data:`UPDATE_ANNOUNCEMENT`."""

    papers: list[dict[str, Any]] = field(default_factory=list)
    announcements: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Plan:
    """What storing a batch writes, and the counts it reports."""

    new: list[PreparedRecord]
    updates: Updates
    # The last accepted record of each paper whose author and category lists are written.
    lists: list[PreparedRecord]
    counts: StoreCounts


def store_records(session: Session, records: Sequence[PaperRecord]) -> StoreCounts:
    """Store one batch; returns how many papers were new, updated and unchanged."""
    items = [prepare(record) for record in records]
    states = load_states(session, [item.record.arxiv_id for item in items])
    stored_before = set(states)
    plan = plan_batch(states, items)
    _insert(session, papers, [_paper_row(item) for item in plan.new])
    write_updates(session, plan.updates)
    if plan.lists:
        delete_lists(session, [item.record.arxiv_id for item in plan.lists], stored_before)
        _insert_lists(session, plan.lists)
    return plan.counts


def load_states(session: Session, arxiv_ids: Sequence[str]) -> dict[str, StoredState]:
    if not arxiv_ids:
        return {}
    query = select(
        papers.c.arxiv_id, papers.c.version, papers.c.content_hash, papers.c.announced_on
    ).where(papers.c.arxiv_id.in_(set(arxiv_ids)))
    return {
        row.arxiv_id: StoredState(row.version, row.content_hash, row.announced_on)
        for row in session.execute(query)
    }


def plan_batch(states: dict[str, StoredState], items: Iterable[PreparedRecord]) -> Plan:
    """Decide each record in order, against the stored state and the batch's earlier records
    (a paper may come twice: ``states`` is updated as it goes)."""
    new: dict[str, PreparedRecord] = {}
    lists: dict[str, PreparedRecord] = {}
    updates = Updates()
    actions: Counter[Action] = Counter()
    for item in items:
        record, record_hash = item.record, item.content_hash
        stored = states.get(record.arxiv_id)
        action = decide(stored, record, record_hash)
        state = states[record.arxiv_id] = state_after(stored, record, record_hash, action)
        actions[action] += 1
        if action is Action.NEW:
            new[record.arxiv_id] = item
        elif action is Action.UPDATE:
            updates.papers.append(_update_row(record, record_hash, state))
        elif action is Action.EARLIER_ANNOUNCEMENT:
            updates.announcements.append(
                {"b_id": record.arxiv_id, "b_announced_on": state.announced_on}
            )
        # An update from a source without authors leaves the stored lists as they are.
        if action is Action.NEW or (action is Action.UPDATE and record.authors):
            lists[record.arxiv_id] = item
    counts = StoreCounts(
        new=actions[Action.NEW],
        updated=actions[Action.UPDATE] + actions[Action.EARLIER_ANNOUNCEMENT],
        unchanged=actions[Action.UNCHANGED],
    )
    return Plan(new=list(new.values()), updates=updates, lists=list(lists.values()), counts=counts)


def _update_row(record: PaperRecord, record_hash: str, state: StoredState) -> dict[str, Any]:
    row = {f"b_{name}": getattr(record, name) for name in FILLABLE}
    row.update(
        b_id=record.arxiv_id,
        b_title=record.title,
        b_abstract=record.abstract or None,
        b_version=state.version,
        b_announced_on=state.announced_on,
        b_content_hash=record_hash,
    )
    return row


UPDATE_PAPER = (
    update(papers)
    .where(papers.c.arxiv_id == bindparam("b_id"))
    .values(
        title=bindparam("b_title"),
        abstract=func.coalesce(bindparam("b_abstract"), papers.c.abstract),
        version=bindparam("b_version"),
        announced_on=bindparam("b_announced_on"),
        content_hash=bindparam("b_content_hash"),
        **{
            name: func.coalesce(bindparam(f"b_{name}", type_=papers.c[name].type), papers.c[name])
            for name in FILLABLE
        },
    )
)
UPDATE_ANNOUNCEMENT = (
    update(papers)
    .where(papers.c.arxiv_id == bindparam("b_id"))
    .values(announced_on=bindparam("b_announced_on"))
)


def write_updates(session: Session, updates: Updates) -> None:
    if updates.papers:
        session.execute(UPDATE_PAPER, updates.papers)
    if updates.announcements:
        session.execute(UPDATE_ANNOUNCEMENT, updates.announcements)


def delete_lists(session: Session, arxiv_ids: Iterable[str], stored: set[str]) -> None:
    """Delete the author and category lists of the papers of ``arxiv_ids`` that were
    ``stored`` before this batch (the others have none)."""
    replaced = [arxiv_id for arxiv_id in arxiv_ids if arxiv_id in stored]
    if replaced:
        session.execute(delete(paper_authors).where(paper_authors.c.arxiv_id.in_(replaced)))
        session.execute(delete(paper_categories).where(paper_categories.c.arxiv_id.in_(replaced)))


def with_primary(categories: tuple[str, ...], primary: str | None) -> tuple[str, ...]:
    """A record's categories, its primary one first when the list lacks it (a listing's list
    holds it; a source may name it apart)."""
    return categories if not primary or primary in categories else (primary, *categories)


def _paper_row(item: PreparedRecord) -> dict[str, Any]:
    row = {name: getattr(item.record, name) for name in PAPER_FIELDS}
    row["content_hash"] = item.content_hash
    return row


def _insert_lists(session: Session, items: Sequence[PreparedRecord]) -> None:
    # A later spelling of a name wins, as in the bulk store; a name with no letter or digit
    # (rare) has no key, so no author row and no link, but it keeps its position.
    names_by_key = {
        key: name
        for item in items
        for key, name in zip(item.author_keys, item.record.authors, strict=True)
        if key
    }
    insert_plain_rows(
        session, authors, ("key", "name"), sorted(names_by_key.items()), skip_duplicates=True
    )
    _insert(session, paper_authors, [link for item in items for link in _author_links(item)])
    _insert(session, paper_categories, [link for item in items for link in _category_links(item)])


def _insert(session: Session, table: Table, rows: list[dict[str, Any]]) -> None:
    if rows:  # an insert with no rows would insert one row of defaults
        session.execute(insert(table), rows)


def _author_links(item: PreparedRecord) -> list[dict[str, Any]]:
    named = zip(item.record.authors, item.author_keys, strict=True)
    return [
        {"arxiv_id": item.record.arxiv_id, "position": position, "author_key": key, "name": name}
        for position, (name, key) in enumerate(named)
        if key
    ]


def _category_links(item: PreparedRecord) -> list[dict[str, Any]]:
    record = item.record
    categories = with_primary(record.categories, record.primary_category)
    return [
        {"arxiv_id": record.arxiv_id, "category": category, "position": position}
        for position, category in enumerate(categories)
    ]
