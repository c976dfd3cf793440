"""Bulk import: papers from a JSON-lines file into the store (``paperboy import``, the demo's
bundled sample); the work is :mod:`ingest.bulk.importer`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from ingest.bulk.chunk_reader import Rejection as Rejection
from ingest.bulk.importer import ImportSummary as ImportSummary
from ingest.bulk.importer import import_file
from search.word_index_load import WordIndexAfterLoad


def import_papers(
    sessions: sessionmaker[Session],
    path: Path,
    *,
    show_progress: bool = False,
    on_rejection: Callable[[Rejection], None] = lambda _: None,
    index_workers: int | None = None,
) -> ImportSummary:
    """Import ``path``; with ``index_workers``, the word index of a first PostgreSQL import is
    computed once after its rows, by that many statements at once."""
    deferred = () if index_workers is None else (WordIndexAfterLoad(index_workers),)
    return import_file(
        path,
        sessions,
        show_progress=show_progress,
        on_rejection=on_rejection,
        deferred_work=deferred,
    )
