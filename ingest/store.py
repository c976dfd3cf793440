"""Write batches of :class:`PaperRecord` into the database: insert, update or skip each.

The decision is :mod:`ingest.merge`'s; this module only reads the stored state of a batch in
one query and writes the outcome with a handful of set-based statements, because a bulk
import stores tens of thousands of papers a minute. A batch is held column by column
(:class:`PreparedBatch`), so that each table's rows are zipped from its columns in C.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any, NamedTuple

import orjson
from sqlalchemy import String, any_, bindparam, delete, func, select, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

from app.core.db import insert_columns, insert_plain_rows
from app.core.models import Author, Base, Paper, PaperAuthor, PaperCategory
from app.core.names import author_keys
from ingest.merge import Action, StoredState, decide, state_after
from ingest.records import PaperRecord

papers = Base.metadata.tables[Paper.__tablename__]
authors = Base.metadata.tables[Author.__tablename__]
paper_authors = Base.metadata.tables[PaperAuthor.__tablename__]
paper_categories = Base.metadata.tables[PaperCategory.__tablename__]

# Fields a record may lack; the stored value is kept then (see ingest.merge).
_FILLABLE = ("primary_category", "comment", "journal_ref", "doi", "license",
             "submitted_at", "updated_at")  # fmt: skip
# The columns of a new paper's row that come straight from a record field of the same name.
_PAPER_FIELDS = ("arxiv_id", "version", "title", "abstract", "primary_category", "comment",
                 "journal_ref", "doi", "license", "submitted_at", "updated_at",
                 "announced_on")  # fmt: skip
_FIELD = {name: index for index, name in enumerate(PaperRecord._fields)}
# Author keys a loader remembers having stored, at most (about 80 bytes each).
MAX_REMEMBERED_AUTHORS = 500_000
_NO_COLUMNS: tuple[tuple[Any, ...], ...] = tuple(() for _ in PaperRecord._fields)


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


class PreparedBatch(NamedTuple):
    """Records with what storing them needs, held column by column.

    A bulk import's reader process builds it and sends it to the importer: a few tuples of
    plain values pickle with no object per record, and each table's rows are zipped from the
    columns in C, where building them record by record took a fifth of a first import.
    """

    columns: tuple[tuple[Any, ...], ...]  # one per PaperRecord field, in field order
    content_hashes: tuple[str, ...]
    author_keys: tuple[tuple[str, ...], ...]  # each record's, one key per author

    @property
    def size(self) -> int:
        return len(self.content_hashes)

    @property
    def arxiv_ids(self) -> tuple[str, ...]:
        return self.columns[_FIELD["arxiv_id"]]

    def column(self, field: str) -> tuple[Any, ...]:
        return self.columns[_FIELD[field]]

    def items(self) -> Iterator[PreparedRecord]:
        """Record by record, for the merge decisions."""
        records = map(PaperRecord._make, zip(*self.columns, strict=True))
        return map(PreparedRecord, records, self.content_hashes, self.author_keys)


def prepare_batch(records: Iterable[PaperRecord]) -> PreparedBatch:
    records = list(records)
    hashes = tuple([record.content_hash() for record in records])
    keys = tuple([author_keys(record.authors) for record in records])
    return PreparedBatch(_columns(records), hashes, keys)


def _batch_of(items: Iterable[PreparedRecord]) -> PreparedBatch:
    records, hashes, keys = tuple(zip(*items, strict=True)) or ((), (), ())
    return PreparedBatch(_columns(records), hashes, keys)


def _columns(records: Sequence[PaperRecord]) -> tuple[tuple[Any, ...], ...]:
    return tuple(zip(*records, strict=True)) or _NO_COLUMNS


@dataclass
class _Plan:
    new: PreparedBatch
    updates: list[dict[str, Any]]
    announcement_updates: list[dict[str, Any]]
    # The last accepted record of each paper whose author and category lists are written.
    lists: PreparedBatch


def store_records(session: Session, records: Sequence[PaperRecord]) -> StoreCounts:
    """Store one batch; returns how many papers were new, updated and unchanged."""
    return store_batch(session, prepare_batch(records))


def store_batch(
    session: Session, batch: PreparedBatch, authors_stored: set[str] | None = None
) -> StoreCounts:
    """Store one prepared batch.

    ``authors_stored``, for a loader that stores many batches, holds the author keys its earlier
    batches stored; this batch adds its own, and skips them rather than asking the database
    again (a rolled-back batch must not be followed by another with the same set).
    """
    states = load_states(session, batch.arxiv_ids)
    stored_before = set(states)
    if not states and len(set(batch.arxiv_ids)) == batch.size:
        plan, actions = _all_new(batch)
    else:
        plan, actions = _plan(states, batch.items())
    _write(session, plan, stored_before, set() if authors_stored is None else authors_stored)
    return StoreCounts(
        new=actions[Action.NEW],
        updated=actions[Action.UPDATE] + actions[Action.EARLIER_ANNOUNCEMENT],
        unchanged=actions[Action.UNCHANGED],
    )


# A batch's ids go in as one parameter, a JSON array on SQLite and an array on PostgreSQL: as
# one bound value per id (10,000 a chunk), SQLAlchemy took longer to render them than the query
# took to run.
_STATE_COLUMNS = (papers.c.arxiv_id, papers.c.version, papers.c.content_hash, papers.c.announced_on)
_STATES = {
    "sqlite": select(*_STATE_COLUMNS).where(
        papers.c.arxiv_id.in_(
            select(func.json_each(bindparam("ids")).table_valued("value").c.value)
        )
    ),
    "postgresql": select(*_STATE_COLUMNS).where(
        papers.c.arxiv_id == any_(bindparam("ids", type_=ARRAY(String)))
    ),
}


def load_states(session: Session, arxiv_ids: Iterable[str]) -> dict[str, StoredState]:
    dialect = session.get_bind().dialect.name
    ids = list(arxiv_ids)
    rows = session.execute(
        _STATES[dialect], {"ids": orjson.dumps(ids).decode() if dialect == "sqlite" else ids}
    )
    return {
        row.arxiv_id: StoredState(row.version, row.content_hash, row.announced_on) for row in rows
    }


def _plan(
    states: dict[str, StoredState], items: Iterable[PreparedRecord]
) -> tuple[_Plan, Counter[Action]]:
    new: dict[str, PreparedRecord] = {}
    lists: dict[str, PreparedRecord] = {}
    updates: list[dict[str, Any]] = []
    announcement_updates: list[dict[str, Any]] = []
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
            updates.append(_update_row(record, record_hash, state))
        elif action is Action.EARLIER_ANNOUNCEMENT:
            announcement_updates.append(
                {"b_id": record.arxiv_id, "b_announced_on": state.announced_on}
            )
        # An update from a source without authors leaves the stored lists as they are.
        if action is Action.NEW or (action is Action.UPDATE and record.authors):
            lists[record.arxiv_id] = item
    plan = _Plan(_batch_of(new.values()), updates, announcement_updates, _batch_of(lists.values()))
    return plan, actions


def _all_new(batch: PreparedBatch) -> tuple[_Plan, Counter[Action]]:
    """The plan when no paper of a batch is stored and none repeats: what ``decide`` would
    say of each record (new), without asking it record by record (most of a first import)."""
    return _Plan(batch, [], [], batch), Counter({Action.NEW: batch.size})


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
    if plan.new.size:
        columns = {name: plan.new.column(name) for name in _PAPER_FIELDS}
        insert_columns(session, papers, {**columns, "content_hash": plan.new.content_hashes})
    if plan.updates:
        session.execute(_UPDATE_PAPER, plan.updates)
    if plan.announcement_updates:
        session.execute(_UPDATE_ANNOUNCEMENT, plan.announcement_updates)
    if plan.lists.size:
        _replace_lists(session, plan.lists, stored_before, authors_stored)


def _replace_lists(
    session: Session, batch: PreparedBatch, stored_before: set[str], authors_stored: set[str]
) -> None:
    replaced = [arxiv_id for arxiv_id in batch.arxiv_ids if arxiv_id in stored_before]
    if replaced:
        session.execute(delete(paper_authors).where(paper_authors.c.arxiv_id.in_(replaced)))
        session.execute(delete(paper_categories).where(paper_categories.c.arxiv_id.in_(replaced)))
    names = list(chain.from_iterable(batch.column("authors")))
    keys = list(chain.from_iterable(batch.author_keys))
    _insert_new_authors(session, dict(zip(keys, names, strict=True)), authors_stored)
    insert_plain_rows(
        session, paper_authors, ("arxiv_id", "position", "author_key", "name"),
        _author_links(batch, keys, names),
    )  # fmt: skip
    insert_plain_rows(
        session, paper_categories, ("arxiv_id", "category", "position"), _category_links(batch)
    )


def _insert_new_authors(
    session: Session, names_by_key: dict[str, str], authors_stored: set[str]
) -> None:
    """Insert the authors not stored yet, in key order: each insert lands next to the previous
    one in the B-tree."""
    names_by_key.pop("", None)  # a name with no letter or digit (rare) has no key
    new_keys = sorted(names_by_key.keys() - authors_stored)
    new_authors = list(zip(new_keys, map(names_by_key.__getitem__, new_keys), strict=True))
    insert_plain_rows(session, authors, ("key", "name"), new_authors, skip_duplicates=True)
    authors_stored.update(new_keys)
    if len(authors_stored) > MAX_REMEMBERED_AUTHORS:
        authors_stored.clear()  # memory stays bounded; the insert skips a repeated key anyway


def _author_links(
    batch: PreparedBatch, keys: list[str], names: list[str]
) -> list[tuple[str, int, str, str]]:
    """The paper_authors rows of ``batch``, whose authors' names and keys are given flat."""
    arxiv_ids, positions = _repeated_by_list(batch.arxiv_ids, batch.column("authors"))
    links = list(zip(arxiv_ids, positions, keys, names, strict=True))
    # A name without a key has no link; positions still count it.
    return [link for link in links if link[2]] if "" in keys else links


def _category_links(batch: PreparedBatch) -> list[tuple[str, str, int]]:
    """The paper_categories rows of ``batch``: a record's primary category comes first when
    its list lacks it (a listing's list holds it; a source may name it apart)."""
    lists = batch.column("categories")
    if any(batch.column("primary_category")):
        lists = tuple(map(_with_primary, lists, batch.column("primary_category")))
    arxiv_ids, positions = _repeated_by_list(batch.arxiv_ids, lists)
    return list(zip(arxiv_ids, chain.from_iterable(lists), positions, strict=True))


def _repeated_by_list(
    arxiv_ids: Sequence[str], lists: Sequence[Sequence[str]]
) -> tuple[Iterator[str], Iterator[int]]:
    """For the items of each paper's list, in order: the paper's id, and the item's position."""
    sizes = list(map(len, lists))
    return (
        chain.from_iterable(map(repeat, arxiv_ids, sizes)),
        chain.from_iterable(map(range, sizes)),
    )


def _with_primary(categories: tuple[str, ...], primary: str | None) -> tuple[str, ...]:
    return categories if not primary or primary in categories else (primary, *categories)
