"""Write batches of :class:`PaperRecord` into the database: insert, update or skip each.

The decision is :mod:`ingest.merge`'s; this module only reads the stored state of a batch in
one query and writes the outcome with a handful of set-based statements, because a bulk
import stores tens of thousands of papers a minute.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import count, repeat
from typing import Any, NamedTuple

from sqlalchemy import bindparam, delete, func, select, update
from sqlalchemy.orm import Session

from app.db import insert_plain_rows
from app.models import Author, Base, Paper, PaperAuthor, PaperCategory
from app.names import cached_author_key
from ingest.merge import Action, StoredState, decide, state_after
from ingest.records import PaperRecord

papers = Base.metadata.tables[Paper.__tablename__]
authors = Base.metadata.tables[Author.__tablename__]
paper_authors = Base.metadata.tables[PaperAuthor.__tablename__]
paper_categories = Base.metadata.tables[PaperCategory.__tablename__]

# Fields a record may lack; the stored value is kept then (see ingest.merge).
_FILLABLE = ("primary_category", "comment", "journal_ref", "doi", "license",
             "submitted_at", "updated_at")  # fmt: skip
# A new paper's row, in this column order (plain tuples: the ORM's per-row work is skipped).
_PAPER_COLUMNS = ("arxiv_id", "version", "title", "abstract", "primary_category", "comment",
                  "journal_ref", "doi", "license", "submitted_at", "updated_at", "announced_on",
                  "content_hash")  # fmt: skip
_record_values = operator.itemgetter(
    *(PaperRecord._fields.index(name) for name in _PAPER_COLUMNS[:-1])
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
    """A record with what storing it needs computed ahead (in a bulk import's reader process).

    A named tuple of plain values, like the record itself, so that it crosses processes cheaply.
    """

    record: PaperRecord
    content_hash: str
    author_keys: tuple[str, ...]


def prepare(record: PaperRecord) -> PreparedRecord:
    keys = tuple(map(cached_author_key, record.authors))
    return PreparedRecord(record, record.content_hash(), keys)


@dataclass
class _Plan:
    new: dict[str, tuple[object, ...]]
    updates: list[dict[str, Any]]
    announcement_updates: list[dict[str, Any]]
    # The last accepted record of each paper whose author and category lists are written.
    lists: dict[str, PreparedRecord]


def store_records(session: Session, records: Sequence[PaperRecord]) -> StoreCounts:
    """Store one batch; returns how many papers were new, updated and unchanged."""
    return store_prepared(session, [prepare(record) for record in records])


def store_prepared(
    session: Session,
    records: Sequence[PreparedRecord],
    authors_stored: set[str] | None = None,
) -> StoreCounts:
    """Store one batch of prepared records.

    ``authors_stored``, for a loader that stores many batches, holds the author keys its earlier
    batches stored; this batch adds its own, and skips them rather than asking the database
    again (a rolled-back batch must not be followed by another with the same set).
    """
    states = load_states(session, {item.record.arxiv_id for item in records})
    stored_before = set(states)
    plan, actions = _plan(states, records)
    _write(session, plan, stored_before, set() if authors_stored is None else authors_stored)
    return StoreCounts(
        new=actions[Action.NEW],
        updated=actions[Action.UPDATE] + actions[Action.EARLIER_ANNOUNCEMENT],
        unchanged=actions[Action.UNCHANGED],
    )


# One statement, compiled once: a list given to ``in_`` would be coerced value by value.
_STATES = select(
    papers.c.arxiv_id, papers.c.version, papers.c.content_hash, papers.c.announced_on
).where(papers.c.arxiv_id.in_(bindparam("ids", expanding=True)))


def load_states(session: Session, arxiv_ids: Iterable[str]) -> dict[str, StoredState]:
    return {
        row.arxiv_id: StoredState(row.version, row.content_hash, row.announced_on)
        for row in session.execute(_STATES, {"ids": list(arxiv_ids)})
    }


def _plan(
    states: dict[str, StoredState], records: Sequence[PreparedRecord]
) -> tuple[_Plan, Counter[Action]]:
    if not states and len({item.record.arxiv_id for item in records}) == len(records):
        return _all_new(records)
    plan = _Plan(new={}, updates=[], announcement_updates=[], lists={})
    actions: Counter[Action] = Counter()
    for item in records:
        record, record_hash = item.record, item.content_hash
        stored = states.get(record.arxiv_id)
        action = decide(stored, record, record_hash)
        state = states[record.arxiv_id] = state_after(stored, record, record_hash, action)
        actions[action] += 1
        if action is Action.NEW:
            plan.new[record.arxiv_id] = _paper_row(record, record_hash)
        elif action is Action.UPDATE:
            plan.updates.append(_update_row(record, record_hash, state))
        elif action is Action.EARLIER_ANNOUNCEMENT:
            plan.announcement_updates.append(
                {"b_id": record.arxiv_id, "b_announced_on": state.announced_on}
            )
        if action in (Action.NEW, Action.UPDATE) and record.authors:
            plan.lists[record.arxiv_id] = item
    return plan, actions


def _all_new(records: Sequence[PreparedRecord]) -> tuple[_Plan, Counter[Action]]:
    """The plan when no paper of a batch is stored and none repeats: what ``decide`` would
    say of each record (new), without asking it record by record (most of a first import)."""
    new = {item.record.arxiv_id: _paper_row(item.record, item.content_hash) for item in records}
    lists = {item.record.arxiv_id: item for item in records if item.record.authors}
    return _Plan(new, [], [], lists), Counter({Action.NEW: len(records)})


def _paper_row(record: PaperRecord, record_hash: str) -> tuple[object, ...]:
    return (*_record_values(record), record_hash)


def _update_row(record: PaperRecord, record_hash: str, state: StoredState) -> dict[str, Any]:
    row = {f"b_{name}": getattr(record, name) for name in _FILLABLE}
    row.update(
        b_id=record.arxiv_id, b_title=record.title, b_abstract=record.abstract or None,
        b_version=state.version, b_announced_on=state.announced_on, b_content_hash=record_hash,
    )  # fmt: skip
    return row


_UPDATE_PAPER = (
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
            for name in _FILLABLE
        },
    )
)
_UPDATE_ANNOUNCEMENT = (
    update(papers)
    .where(papers.c.arxiv_id == bindparam("b_id"))
    .values(announced_on=bindparam("b_announced_on"))
)


def _write(
    session: Session, plan: _Plan, stored_before: set[str], authors_stored: set[str]
) -> None:
    if plan.new:
        insert_plain_rows(session, papers, _PAPER_COLUMNS, list(plan.new.values()))
    if plan.updates:
        session.execute(_UPDATE_PAPER, plan.updates)
    if plan.announcement_updates:
        session.execute(_UPDATE_ANNOUNCEMENT, plan.announcement_updates)
    if plan.lists:
        _replace_lists(session, plan.lists, stored_before, authors_stored)


def _replace_lists(
    session: Session,
    records: dict[str, PreparedRecord],
    stored_before: set[str],
    authors_stored: set[str],
) -> None:
    replaced = [arxiv_id for arxiv_id in records if arxiv_id in stored_before]
    if replaced:
        session.execute(delete(paper_authors).where(paper_authors.c.arxiv_id.in_(replaced)))
        session.execute(delete(paper_categories).where(paper_categories.c.arxiv_id.in_(replaced)))
    links = _author_links(records.values())
    # Name by key, written in key order (each insert lands next to the previous one in the
    # B-tree), less the keys this loader stored already; C-level set and dict operations,
    # because a bulk import sees half a million links.
    names = dict(map(_KEY_AND_NAME, links))
    new_keys = sorted(names.keys() - authors_stored)
    insert_plain_rows(
        session, authors, ("key", "name"), [(key, names[key]) for key in new_keys],
        skip_duplicates=True,
    )  # fmt: skip
    authors_stored.update(new_keys)
    insert_plain_rows(session, paper_authors, ("arxiv_id", "position", "author_key", "name"), links)
    category_links = [link for item in records.values() for link in _category_links(item.record)]
    insert_plain_rows(
        session, paper_categories, ("arxiv_id", "category", "position"), category_links
    )


_KEY_AND_NAME = operator.itemgetter(2, 3)


def _author_links(records: Iterable[PreparedRecord]) -> list[tuple[str, int, str, str]]:
    """The paper_authors rows of ``records``: zipped together in C from columns filled a record
    at a time, since a bulk import writes half a million of them."""
    arxiv_ids: list[str] = []
    positions: list[int] = []
    names: list[str] = []
    keys: list[str] = []
    for record, _, author_keys in records:
        size = len(author_keys)
        arxiv_ids.extend(repeat(record.arxiv_id, size))
        positions.extend(range(size))
        names.extend(record.authors)
        keys.extend(author_keys)
    links = list(zip(arxiv_ids, positions, keys, names, strict=True))
    # A name with no letter or digit (rare) has no key and no link; positions still count it.
    return links if all(keys) else [link for link in links if link[2]]


def _category_links(record: PaperRecord) -> Iterable[tuple[str, str, int]]:
    names = record.categories
    if record.primary_category and record.primary_category not in names:
        names = (record.primary_category, *names)
    return zip(repeat(record.arxiv_id), names, count())
