"""``paperboy import``: stream a bulk JSON-lines file into the database.

Memory stays constant (a few chunks in flight) and each chunk is committed, so a fatal error
half-way (a truncated download) keeps every paper stored before it. Bad lines are reported
with their number and skipped; the run is recorded in the ingest log.

Parsing and storing each take about half of a first import, so a reader process
(:mod:`ingest.bulk.chunk_reader`) decompresses and parses the next chunks while this one stores.
A first import (no papers stored yet) also builds the secondary indexes of the tables it fills
once at the end (:mod:`ingest.bulk.deferred`) and writes through a connection set for loading
(:func:`bulk_load_sessions`); chunks are stored by :mod:`ingest.bulk.batch_writer`, which gives
the rows live ingest's plain :mod:`ingest.paper_writer` gives.

The connection a bulk import writes through has, on SQLite, settings for loading, not serving.
Every other process keeps the settings :func:`app.core.db.make_engine` gives each connection; an
import switches them for its own connection only and switches them back before that connection
returns to the pool.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Never

from sqlalchemy import URL, Connection, Engine, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from tqdm import tqdm

from app.core.db import SQLITE_CACHE_SIZE, session_scope
from app.core.db_faults import describe_database_error
from app.core.models import IngestRun, IngestRunStatus, Paper
from ingest.bulk.batch_writer import store_batch
from ingest.bulk.chunk_reader import ParsedChunk, ReaderError, Rejection, read_in_background
from ingest.bulk.deferred import (
    DeferredWork,
    constraints_restored_at_end,
    restore_missing_constraints,
)
from ingest.jsonl import TruncatedFileError
from ingest.paper_writer import StoreCounts

CHUNK_SIZE = 10_000
SOURCE = "import"
MAX_LOGGED_REJECTIONS = 20


@dataclass
class ImportSummary:
    path: Path
    read: int = 0
    counts: StoreCounts = field(default_factory=StoreCounts)
    rejections: list[Rejection] = field(default_factory=list)
    fatal: str | None = None
    # Seconds of each step of work deferred to the end of a first import (or of a killed one).
    finished_after: dict[str, float] = field(default_factory=dict)

    @property
    def status(self) -> IngestRunStatus:
        if self.fatal:
            return IngestRunStatus.FAILED
        return IngestRunStatus.PARTIAL if self.rejections else IngestRunStatus.OK

    @property
    def exit_code(self) -> int:
        """0: every line taken; 2: some lines rejected; 1: the import stopped early."""
        if self.fatal:
            return 1
        return 2 if self.rejections else 0

    def line(self) -> str:
        counts = self.counts
        text = (
            f"{self.path.name}: read {self.read}, new {counts.new}, updated {counts.updated}, "
            f"unchanged {counts.unchanged}, rejected {len(self.rejections)}"
        )
        if self.finished_after:
            steps = ", ".join(
                f"{name} {seconds:.1f} s" for name, seconds in self.finished_after.items()
            )
            text = f"{text}; built after the rows: {steps}"
        return f"{text}; stopped: {self.fatal}" if self.fatal else text


def import_file(
    path: Path,
    sessions: sessionmaker[Session],
    *,
    chunk_size: int = CHUNK_SIZE,
    show_progress: bool = False,
    on_rejection: Callable[[Rejection], None] = lambda _: None,
    deferred_work: Sequence[DeferredWork] = (),
) -> ImportSummary:
    """Import ``path``; the summary tells what happened (it raises only for a missing file).

    ``deferred_work``: what layers above keep current row by row, done once after the rows
    of a first import instead (``paperboy import`` hands in PostgreSQL's word index)."""
    summary = ImportSummary(path)
    run_id = _start_run(sessions, path)
    authors_stored: set[str] = set()
    try:
        summary.finished_after = restore_missing_constraints(sessions, deferred_work)
        first_load = _holds_no_papers(sessions)
        with (
            _no_cycle_collection(),
            bulk_load_sessions(sessions, first_load=first_load) as loader_sessions,
            constraints_restored_at_end(loader_sessions, first_load, deferred_work) as finished,
            read_in_background(path, chunk_size) as chunks,
            _progress(path, show_progress) as bar,
        ):
            for chunk in chunks:
                _store_chunk(loader_sessions, chunk, summary, on_rejection, authors_stored)
                bar.update(chunk.position - bar.n)
        summary.finished_after.update(finished)
    except (TruncatedFileError, ReaderError) as error:
        summary.fatal = str(error)
    except SQLAlchemyError as error:
        # Chunks stored before this one stay; the failing chunk was rolled back whole.
        said = describe_database_error(error, _database_url(sessions))
        summary.fatal = f"the database refused a chunk after line {summary.read}: {said}"
    _finish_run(sessions, run_id, summary)
    return summary


def _database_url(sessions: sessionmaker[Session]) -> URL:
    """The URL object: its backend and path are read, its password never rendered."""
    with sessions() as session:
        return session.get_bind().engine.url


def _store_chunk(
    sessions: sessionmaker[Session],
    chunk: ParsedChunk,
    summary: ImportSummary,
    on_rejection: Callable[[Rejection], None],
    authors_stored: set[str],
) -> None:
    if chunk.batch.size:
        with session_scope(sessions) as session:
            counts = store_batch(session, chunk.batch, authors_stored)
        summary.counts += counts  # counted once committed: a refused commit stored nothing
    summary.read += chunk.read
    summary.rejections.extend(chunk.rejections)
    for rejection in chunk.rejections:
        on_rejection(rejection)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Pause the cyclic garbage collector: unpickling a chunk makes some hundred thousand tuples,
    and each of them would trigger rescans of everything alive (a fifth of storing a chunk).
    The few cycles made meanwhile are collected once it resumes."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _holds_no_papers(sessions: sessionmaker[Session]) -> bool:
    with session_scope(sessions) as session:
        return session.scalar(select(Paper.arxiv_id).limit(1)) is None


def _progress(path: Path, show: bool) -> tqdm[Never]:
    size = path.stat().st_size
    return tqdm(total=size, unit="B", unit_scale=True, desc=path.name, disable=not show)


def _start_run(sessions: sessionmaker[Session], path: Path) -> int:
    with session_scope(sessions) as session:
        run = IngestRun(
            source=SOURCE, detail=str(path), status=IngestRunStatus.RUNNING, started_at=_now()
        )
        session.add(run)
        session.flush()
        return run.id


def _finish_run(sessions: sessionmaker[Session], run_id: int, summary: ImportSummary) -> None:
    with session_scope(sessions) as session:
        run = session.get_one(IngestRun, run_id)
        run.status = summary.status
        run.finished_at = _now()
        run.read_count = summary.read
        run.new_count = summary.counts.new
        run.updated_count = summary.counts.updated
        run.unchanged_count = summary.counts.unchanged
        run.rejected_count = len(summary.rejections)
        run.error = _error_text(summary)


def _error_text(summary: ImportSummary) -> str | None:
    notes = [str(rejection) for rejection in summary.rejections[:MAX_LOGGED_REJECTIONS]]
    if len(summary.rejections) > MAX_LOGGED_REJECTIONS:
        notes.append(f"... and {len(summary.rejections) - MAX_LOGGED_REJECTIONS} more rejected")
    if summary.fatal:
        notes.insert(0, summary.fatal)
    return "\n".join(notes) or None


def _now() -> datetime:
    return datetime.now(UTC)


# A page cache in KiB (negative: SQLite's unit for a size rather than a page count).
BULK_LOAD_CACHE_SIZE = -262_144


@contextmanager
def bulk_load_sessions(
    sessions: sessionmaker[Session], *, first_load: bool = False
) -> Iterator[sessionmaker[Session]]:
    """Sessions for a bulk loader that writes every parent row before its children itself.

    On SQLite they share one connection with per-row foreign-key checks off (those checks are
    much of the cost of inserting author links) and a 256 MB page cache, so a chunk's index pages
    stay in memory. A ``first_load`` (the database holds no papers: there is nothing to lose)
    also commits without waiting for the disk, then syncs everything once at the end: an
    application crash or kill keeps every committed chunk either way; only an operating-system
    crash or power cut during a first load may leave a file to delete and load again. The
    connection gets its usual settings back before it returns to the pool. Other databases get
    the usual sessions.
    """
    engine = sessions.kw["bind"]
    if not isinstance(engine, Engine) or engine.dialect.name != "sqlite":
        yield sessions
        return
    with engine.connect() as connection:
        # PRAGMAs outside any transaction, then commit, so each session begins its own.
        _set_pragmas(connection, foreign_keys="OFF", cache_size=BULK_LOAD_CACHE_SIZE)
        if first_load:
            _set_pragmas(connection, synchronous="OFF")
        try:
            yield sessionmaker(bind=connection, expire_on_commit=False)
        finally:
            connection.rollback()
            _set_pragmas(connection, foreign_keys="ON", cache_size=SQLITE_CACHE_SIZE)
            if first_load:
                _set_pragmas(connection, synchronous="NORMAL")
                # Copy the load into the database file and sync it: durable from here on.
                connection.exec_driver_sql("PRAGMA wal_checkpoint(FULL)")
                connection.commit()


def _set_pragmas(connection: Connection, **values: object) -> None:
    for name, value in values.items():
        # Names and values are this module's constants, never input.
        connection.exec_driver_sql(f"PRAGMA {name}={value}")
    connection.commit()
