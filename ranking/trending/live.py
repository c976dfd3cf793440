"""What the trending scorer needs for a live day, read from the database (thin I/O shell).

:func:`with_memory` gives a day's scoring context the author history and topic memory that
eval-trending gives the scorer from files, from stored rows dated before the day: Hugging Face
Daily Papers records (``hf_daily_papers``, with the authors they list, else their stored
papers' authors), earlier
papers and their stored embeddings. The edition builder's context already holds the community
signals observed up to the day (:func:`ranking.signals.load_signals`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date, timedelta

import numpy as np
from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from app.core.models import HfDailyPaper, Paper, PaperAuthor, PaperEmbedding
from app.core.names import author_key
from app.core.vectors import stack
from ranking.scoring import Candidate, Score, ScoringContext
from ranking.trending.data import LabelRecord
from ranking.trending.features import EMBEDDING_SIZE, INTEREST_DAYS, TopicMemory
from ranking.trending.history import AuthorHistory, Published
from ranking.trending.model import TrendingModel
from ranking.trending.scorer import TrendingScorer

HISTORY_DAYS = 730
# Past this many author keys an IN list grows too long for SQLite; the whole window is read.
MAX_FILTERED_AUTHORS = 5_000


class LiveTrendingScorer:
    """The trending scorer on live days: each day's author history and topic memory are read
    from the database as of that day, so a day ranked live scores as it would replayed."""

    def __init__(self, model: TrendingModel, session: Session, embedding_model: str) -> None:
        self._model = model
        self._session = session
        self._embedding_model = embedding_model

    @property
    def name(self) -> str:
        return "trending"

    @property
    def version(self) -> str:
        return self._model.model_id

    def score(self, candidates: Sequence[Candidate], context: ScoringContext) -> list[Score]:
        context = with_memory(self._session, context, self._embedding_model, candidates)
        return TrendingScorer(self._model).score(candidates, context)


def with_memory(
    session: Session, context: ScoringContext, model: str, candidates: Sequence[Candidate] = ()
) -> ScoringContext:
    """``context`` with the author history and topic memory as of its day (nothing dated on or
    after it)."""
    day = context.day
    history = _author_history(session, day, candidates)
    memory = _topic_memory(session, day, history, model)
    return replace(context, author_history=history, topic_memory=memory)


def _author_history(session: Session, day: date, candidates: Sequence[Candidate]) -> AuthorHistory:
    """Label records and earlier papers before ``day``.

    Given the ``candidates``, the history reads only earlier papers that share an author with
    one of them: no other paper can change a candidate's author statistics, and reading two
    years of every author is most of the cost of ranking a day.
    """
    keys = _author_keys(candidates)
    earlier = _earlier_papers(session, day - timedelta(days=HISTORY_DAYS), day, keys)
    return AuthorHistory(_labels(session, day), earlier)


def _author_keys(candidates: Sequence[Candidate]) -> frozenset[str] | None:
    """The candidates' author keys, or ``None`` (read every author) when there are too many."""
    keys = frozenset(author_key(name) for candidate in candidates for name in candidate.authors)
    return keys if candidates and len(keys) <= MAX_FILTERED_AUTHORS else None


def _labels(session: Session, day: date) -> list[LabelRecord]:
    """Hugging Face's records before ``day``, each with the authors it lists (as the label files
    the model learned from do), else its paper's stored authors."""
    rows = session.execute(
        select(
            HfDailyPaper.arxiv_id,
            HfDailyPaper.daily_date,
            HfDailyPaper.upvotes,
            HfDailyPaper.authors,
        ).where(HfDailyPaper.daily_date < day)
    ).all()
    earlier = select(HfDailyPaper.arxiv_id).where(HfDailyPaper.daily_date < day)
    stored = _authors(session, earlier) if any(not row.authors for row in rows) else {}
    return [
        LabelRecord(
            arxiv_id=row.arxiv_id,
            featured_on=row.daily_date,
            upvotes=row.upvotes,
            authors=tuple(row.authors) if row.authors else stored.get(row.arxiv_id, ()),
        )
        for row in rows
    ]


def _earlier_papers(
    session: Session, start: date, end: date, author_keys: frozenset[str] | None
) -> list[Published]:
    """Papers announced in [start, end) with their authors (``None``: every paper and author);
    with ``author_keys``, only the papers of those authors, each with only those authors (the
    history of other names is never asked for); with an empty set, every paper, no authors."""
    window = (Paper.announced_on >= start) & (Paper.announced_on < end)
    if author_keys:
        return _papers_of(session, window, author_keys)
    rows = session.execute(select(Paper.arxiv_id, Paper.announced_on).where(window)).all()
    if author_keys is not None:
        return [Published(row.arxiv_id, (), row.announced_on) for row in rows]
    authors = _authors(session, select(Paper.arxiv_id).where(window))
    return [
        Published(row.arxiv_id, authors.get(row.arxiv_id, ()), row.announced_on) for row in rows
    ]


def _papers_of(
    session: Session, window: ColumnElement[bool], author_keys: frozenset[str]
) -> list[Published]:
    """The window's papers by any of ``author_keys``, each with only those authors, as keys.

    Both reads start from the author key index: the authors' rows of all time are few, where
    the window's rows of every author are many.
    """
    by_authors = select(PaperAuthor.arxiv_id).where(PaperAuthor.author_key.in_(author_keys))
    days = {
        row.arxiv_id: row.announced_on
        for row in session.execute(
            select(Paper.arxiv_id, Paper.announced_on).where(
                window & Paper.arxiv_id.in_(by_authors)
            )
        )
    }
    rows = session.execute(
        select(PaperAuthor.arxiv_id, PaperAuthor.author_key)
        .where(PaperAuthor.author_key.in_(author_keys))
        .order_by(PaperAuthor.arxiv_id, PaperAuthor.position)
    )
    grouped: dict[str, list[str]] = {}
    for arxiv_id, key in rows:
        if days.get(arxiv_id) is not None:
            grouped.setdefault(arxiv_id, []).append(key)
    return [
        Published(arxiv_id, tuple(keys), days[arxiv_id], keyed=True)
        for arxiv_id, keys in grouped.items()
    ]


def _authors(session: Session, papers: object) -> dict[str, tuple[str, ...]]:
    query = select(PaperAuthor.arxiv_id, PaperAuthor.name).where(
        PaperAuthor.arxiv_id.in_(papers)  # type: ignore[arg-type]
    )
    grouped: dict[str, list[str]] = {}
    for arxiv_id, name in session.execute(
        query.order_by(PaperAuthor.arxiv_id, PaperAuthor.position)
    ):
        grouped.setdefault(arxiv_id, []).append(name)
    return {arxiv_id: tuple(names) for arxiv_id, names in grouped.items()}


def _topic_memory(session: Session, day: date, history: AuthorHistory, model: str) -> TopicMemory:
    """The papers of the ``INTEREST_DAYS`` before ``day`` that have a vector under ``model``,
    read with their vectors in one query (a paper without one is left out)."""
    start = day - timedelta(days=INTEREST_DAYS)
    rows = session.execute(
        select(Paper.arxiv_id, Paper.announced_on, PaperEmbedding.dimensions, PaperEmbedding.vector)
        .join(PaperEmbedding, PaperEmbedding.arxiv_id == Paper.arxiv_id)
        .where(PaperEmbedding.model == model, Paper.announced_on >= start, Paper.announced_on < day)
    ).all()
    dimensions = rows[0].dimensions if rows else EMBEDDING_SIZE
    matrix = stack([row.vector for row in rows], dimensions)
    announced = np.array([row.announced_on.toordinal() for row in rows], dtype=np.int64)
    featured = np.array([history.first_featured(row.arxiv_id) for row in rows], dtype=np.int64)
    return TopicMemory(matrix, announced, featured)
