"""The ranking steps as use cases: embed a day's papers, store precomputed vectors, rank a
day (topics and its edition), publish its week and month, rebuild its editions with new signals.

Storing vectors (embedding, importing) also rewrites the search index files under DATA_DIR
where search runs in the web processes (SQLite, or PostgreSQL without pgvector), so that
they open it rather than build it.

Each step is one unit of work (it commits only once it has finished, so a crash leaves the
database as it was before the step) and returns a report of what it stored. A step whose
input is unusable raises :class:`ranking.errors.RankingInputError`; its caller decides what
that means (the command line prints it, the daily chain stops).

The signals job (:func:`refresh_signals`) reads Hugging Face upvotes, then rebuilds the day's
published editions (day, week, month) with them and with the votes cast on Paperboy.

Signals raise or lower a paper as they arrive, and a changed order is a new version of the
same editions. The votes are local, so the rebuild runs even when Hugging Face could not be
read, and alone in offline mode.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.core.vectors import Matrix
from app.services.ingest import IngestReport, Source, ingest
from app.services.previews.stored import PreviewsReport, draw_published
from app.services.reports import Completed, Failure, Outcome, worst
from ingest.live_writes import latest_listing_day
from ranking.day_topics import TopicsSummary
from ranking.editions import Publication
from ranking.embedder import make_embedder
from ranking.embeddings import EmbedSummary, MatrixImportSummary, count_papers, embed_papers
from ranking.embeddings import import_matrix as store_matrix
from ranking.errors import RankingInputError
from ranking.labels import Encode
from ranking.onnx_encoder import phrase_encoder, prepare_query_model
from ranking.phrase_vectors import PhraseMemory
from ranking.pipeline import default_scorer, publish_periods, rank_day
from ranking.pipeline import refresh_editions as rebuild_editions
from ranking.scoring import Scorer
from search.database_indexes import has_vector_column
from search.index_files import index_directory
from search.index_writer import Written, refresh_search_index

Advance = Callable[[int], None]
# Given the number of items to come, a context yielding the function told of each batch done
# (the command line's progress bar); jobs show none.
Progress = Callable[[int], AbstractContextManager[Advance]]


def no_progress(_total: int) -> AbstractContextManager[Advance]:
    return nullcontext(lambda _done: None)


@dataclass(frozen=True)
class EmbedReport(Completed):
    model: str
    summary: EmbedSummary
    search_index: Written | None = None  # None: already current, or searched in the database

    def lines(self) -> list[str]:
        written = [self.search_index.line()] if self.search_index else []
        return [f"embedded ({self.model}) {self.summary.line()}", *written]


@dataclass(frozen=True)
class MatrixImportReport(Completed):
    model: str
    summary: MatrixImportSummary
    search_index: Written | None = None

    def lines(self) -> list[str]:
        written = [self.search_index.line()] if self.search_index else []
        return [f"imported embeddings ({self.model}) {self.summary.line()}", *written]


@dataclass(frozen=True)
class RankReport(Completed):
    topics: TopicsSummary
    edition: Publication

    def lines(self) -> list[str]:
        return [self.topics.line(), self.edition.line()]


@dataclass(frozen=True)
class EditionsReport(Completed):
    editions: tuple[Publication, ...]

    def lines(self) -> list[str]:
        return [edition.line() for edition in self.editions]


def embed(
    settings: Settings,
    sessions: sessionmaker[Session],
    day: date | None,
    progress: Progress = no_progress,
) -> EmbedReport:
    """Embed the papers of ``day`` (None: every paper) whose vector is missing or stale,
    committing each chunk as it is stored: a run that is killed is finished by the next."""
    embedder = make_embedder(settings)
    with session_scope(sessions) as session, progress(count_papers(session, day)) as advance:
        summary = embed_papers(
            session,
            embedder,
            day=day,
            progress=advance,
            checkpoint=session.commit,
            page_size=settings.embedding_chunk_size,
        )
    _query_model(settings)
    return EmbedReport(embedder.model, summary, _search_index(settings, sessions))


def import_embeddings(
    settings: Settings,
    sessions: sessionmaker[Session],
    vectors: Matrix,
    ids: list[str],
    model: str,
    progress: Progress = no_progress,
) -> MatrixImportReport:
    """Store checked precomputed vectors (one row per id) for the papers already known."""
    with session_scope(sessions) as session, progress(len(ids)) as advance:
        summary = store_matrix(session, vectors, ids, model, advance)
    return MatrixImportReport(model, summary, _search_index(settings, sessions))


def _query_model(settings: Settings) -> None:
    """The web's torch-free query model, built here (once) so no web process has to."""
    if settings.search_semantic and settings.search_query_backend == "onnx-int8":
        prepare_query_model(settings)


def _search_index(settings: Settings, sessions: sessionmaker[Session]) -> Written | None:
    """The search index files rewritten unless current, where web processes search in memory.

    A full rebuild takes seconds for a corpus of tens of thousands of papers; it runs once a day.
    """
    with sessions() as session:
        bind = session.get_bind()
        if has_vector_column(bind if isinstance(bind, Engine) else bind.engine):
            return None
        directory = index_directory(settings.data_dir)
        return refresh_search_index(session, directory, settings.embedding_model)


def rank(settings: Settings, sessions: sessionmaker[Session], day: date) -> RankReport:
    """The day's topics (with its trailing window), then the day's edition."""
    kept = PhraseMemory(sessions, _label_model(settings), day)
    with session_scope(sessions) as session:
        scorer = default_scorer(settings, session)
        encode = _label_encoder(settings)
        labelling = None if encode is None else kept.around(encode)
        topics, edition = rank_day(session, day, settings, scorer, labelling)
    kept.keep()  # after the day's commit: a cache, kept in a unit of work of its own
    return RankReport(topics, edition)


def _label_encoder(settings: Settings) -> Encode | None:
    """The model for topic labels' phrases, unless the settings turn labelling by meaning off:
    the int8 query model where searches use it (no torch; it starts loading now, where it is
    built), else the embedding backend's (loaded on the first label)."""
    if not settings.topic_labels_by_meaning:
        return None
    if settings.search_query_backend == "onnx-int8":
        return phrase_encoder(settings)
    return make_embedder(settings).encode


def _label_model(settings: Settings) -> str:
    """What the label phrases' vectors are kept under: the model and how it is run."""
    backend = (
        "onnx-int8" if settings.search_query_backend == "onnx-int8" else settings.embedding_backend
    )
    return f"{settings.embedding_model} ({backend})"


def publish(settings: Settings, sessions: sessionmaker[Session], day: date) -> EditionsReport:
    """The week and month editions that hold ``day``, rebuilt with it."""
    return _editions(settings, sessions, day, publish_periods)


def refresh_editions(
    settings: Settings, sessions: sessionmaker[Session], day: date
) -> EditionsReport:
    """The day's published editions rebuilt with the signals seen so far."""
    return _editions(settings, sessions, day, rebuild_editions)


def _editions(
    settings: Settings,
    sessions: sessionmaker[Session],
    day: date,
    build: Callable[[Session, date, Settings, Scorer], list[Publication]],
) -> EditionsReport:
    with session_scope(sessions) as session:
        editions = build(session, day, settings, default_scorer(settings, session))
    return EditionsReport(tuple(editions))


log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SignalsReport:
    # None in offline mode: Hugging Face is not read.
    hf: IngestReport | None
    # None when no announcement is stored yet, or the rebuild failed.
    rebuilt: EditionsReport | None = None
    rebuild_failure: Failure | None = None
    # None when nothing was rebuilt, or drawing failed (logged: the web draws what is missing).
    previews: PreviewsReport | None = None

    @property
    def outcome(self) -> Outcome:
        read = self.hf.outcome if self.hf else Outcome.OK
        return worst((read, Outcome.FAILED if self.rebuild_failure else Outcome.OK))

    @property
    def failure(self) -> Failure | None:
        return self.rebuild_failure or (self.hf.failure if self.hf else None)

    def lines(self) -> list[str]:
        return [
            *(self.hf.lines() if self.hf else []),
            *(self.rebuilt.lines() if self.rebuilt else []),
            *(self.previews.lines() if self.previews else []),
        ]


def refresh_signals(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, day: date | None = None
) -> SignalsReport:
    """Read ``day``'s Hugging Face page (None: the latest day), then rebuild its editions."""
    hf = None if settings.offline else ingest(settings, sessions, now, source=Source.HF, day=day)
    target = day or _latest_listing_day(sessions)
    if target is None:
        return SignalsReport(hf)
    try:
        rebuilt = refresh_editions(settings, sessions, target)
    except RankingInputError as error:
        return SignalsReport(hf, rebuild_failure=Failure.of(error))
    return SignalsReport(hf, rebuilt, previews=_previews_redrawn(settings, sessions, target))


def _previews_redrawn(
    settings: Settings, sessions: sessionmaker[Session], day: date
) -> PreviewsReport | None:
    """The previews whose upvotes or chance the rebuild moved, drawn again."""
    try:
        return draw_published(settings, sessions, day)
    except Exception:
        log.exception("drawing the link previews of %s failed; the rebuild stands", day)
        return None


def _latest_listing_day(sessions: sessionmaker[Session]) -> date | None:
    with session_scope(sessions) as session:
        return latest_listing_day(session)
