"""A bulk import's way of storing a batch: the same rows as :mod:`ingest.paper_writer`,
written faster.

A first import stores tens of thousands of papers a minute. The batch is held column by column
(:class:`PreparedBatch`), so that it crosses from the reader process with no object per record
and each table's rows are zipped from its columns in C; they are written with
:mod:`ingest.bulk.rows`. A batch of papers none of which is stored skips the record-by-record
plan. Everything else (the merge decisions, the update statements) is :mod:`ingest.paper_writer`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, repeat
from typing import Any, NamedTuple

import orjson
from sqlalchemy import String, any_, bindparam, func, select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

from app.core.names import author_keys
from ingest.bulk.rows import insert_columns, insert_rows
from ingest.merge import StoredState
from ingest.paper_writer import (
    PAPER_FIELDS,
    PreparedRecord,
    StoreCounts,
    Updates,
    authors,
    delete_lists,
    paper_authors,
    paper_categories,
    papers,
    plan_batch,
    with_primary,
    write_updates,
)
from ingest.records import PaperRecord

_FIELD = {name: index for index, name in enumerate(PaperRecord._fields)}
# Author keys a loader remembers having stored, at most (about 80 bytes each).
MAX_REMEMBERED_AUTHORS = 500_000
_NO_COLUMNS: tuple[tuple[Any, ...], ...] = tuple(() for _ in PaperRecord._fields)


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


def store_batch(
    session: Session, batch: PreparedBatch, authors_stored: set[str] | None = None
) -> StoreCounts:
    """Store one prepared batch, as :func:`ingest.paper_writer.store_records` would.

    ``authors_stored``, for a loader that stores many batches, holds the author keys its earlier
    batches stored; this batch adds its own, and skips them rather than asking the database
    again (a rolled-back batch must not be followed by another with the same set).
    """
    states = load_states(session, batch.arxiv_ids)
    stored_before = set(states)
    if not states and len(set(batch.arxiv_ids)) == batch.size:
        # What the plan would say of each record (new), without asking record by record: most
        # of a first import.
        new, lists, counts = batch, batch, StoreCounts(new=batch.size)
        updates = Updates()
    else:
        plan = plan_batch(states, batch.items())
        new, lists, counts = _batch_of(plan.new), _batch_of(plan.lists), plan.counts
        updates = plan.updates
    if new.size:
        columns = {name: new.column(name) for name in PAPER_FIELDS}
        insert_columns(session, papers, {**columns, "content_hash": new.content_hashes})
    write_updates(session, updates)
    if lists.size:
        delete_lists(session, lists.arxiv_ids, stored_before)
        _insert_lists(session, lists, set() if authors_stored is None else authors_stored)
    return counts


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


def _insert_lists(session: Session, batch: PreparedBatch, authors_stored: set[str]) -> None:
    names = list(chain.from_iterable(batch.column("authors")))
    keys = list(chain.from_iterable(batch.author_keys))
    _insert_new_authors(session, dict(zip(keys, names, strict=True)), authors_stored)
    insert_rows(
        session,
        paper_authors,
        ("arxiv_id", "position", "author_key", "name"),
        _author_links(batch, keys, names),
    )
    insert_rows(
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
    insert_rows(session, authors, ("key", "name"), new_authors, skip_duplicates=True)
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
    """The paper_categories rows of ``batch``, each list with its primary category first."""
    lists = batch.column("categories")
    if any(batch.column("primary_category")):
        lists = tuple(map(with_primary, lists, batch.column("primary_category")))
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
