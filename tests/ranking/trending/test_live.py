"""A live day ranked from the database scores exactly as the same day replayed from files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime

import numpy as np
import pytest
from numpy.typing import NDArray
from sqlalchemy.orm import Session

from app.core.models import HfDailyPaper
from ingest.bulk.importer import import_file
from ranking.embeddings import import_matrix
from ranking.scoring import Candidate, Score, ScoringContext
from ranking.signals import load_signals
from ranking.trending.data import LabelRecord
from ranking.trending.evaluation import paperboy
from ranking.trending.live import LiveTrendingScorer, with_memory
from ranking.trending.model import TrendingModel, load_model
from ranking.trending.replay import Day, Replay
from ranking.trending.scorer import TrendingScorer
from tests.conftest import Database
from tests.ranking.trending.conftest import CORPUS_PATH

DAY = date(2025, 10, 23)
MODEL = "all-MiniLM-L6-v2"


def _store(
    database: Database,
    labels: list[LabelRecord],
    embeddings: dict[str, NDArray[np.float32]],
    with_authors: bool = False,
) -> None:
    """The corpus, the vectors and the labels; the labels' author lists too if asked (rows
    stored before Hugging Face's authors were kept have none)."""
    import_file(CORPUS_PATH, database.sessions)
    ids = sorted(embeddings)
    with database.sessions.begin() as session:
        import_matrix(session, np.stack([embeddings[i] for i in ids]), ids, MODEL)
        session.add_all(
            HfDailyPaper(
                daily_date=record.featured_on,
                arxiv_id=record.arxiv_id,
                upvotes=record.upvotes,
                num_comments=None,
                github_repo=None,
                github_stars=None,
                ai_keywords=[],
                submitted_on_daily_at=None,
                published_at=None,
                fetched_at=datetime.now(UTC),
                authors=list(record.authors) if with_authors else None,
            )
            for record in labels
        )


def _stored_replay(
    database: Database,
    corpus: list[Candidate],
    labels: list[LabelRecord],
    embeddings: dict[str, NDArray[np.float32]],
) -> Replay:
    """Store the corpus and labels without their authors, and the replay of the same data."""
    by_id = {paper.arxiv_id: paper for paper in corpus}
    # Labels stored without authors get them from the stored papers: give the replay the same.
    stored = [
        replace(record, authors=by_id[record.arxiv_id].authors)
        for record in labels
        if record.arxiv_id in by_id
    ]
    _store(database, stored, embeddings)
    return Replay(corpus, embeddings, stored)


def _scored_on_the_whole_history(model: TrendingModel, session: Session, day: Day) -> list[Score]:
    context = with_memory(session, ScoringContext(DAY, day.embeddings), MODEL)
    return TrendingScorer(model).score(day.papers, context)


def _scored_on_its_candidates_authors(
    model: TrendingModel, session: Session, day: Day
) -> list[Score]:
    scorer = LiveTrendingScorer(model, session, MODEL)
    return scorer.score(day.papers, ScoringContext(DAY, day.embeddings))


@pytest.mark.parametrize(
    "score_live", [_scored_on_the_whole_history, _scored_on_its_candidates_authors]
)
def test_a_live_day_scores_as_the_replayed_day(
    database: Database,
    corpus: list[Candidate],
    labels: list[LabelRecord],
    embeddings: dict[str, NDArray[np.float32]],
    score_live: Callable[[TrendingModel, Session, Day], list[Score]],
) -> None:
    replay = _stored_replay(database, corpus, labels, embeddings)
    day = replay.day(DAY)
    model = load_model()
    with database.sessions() as session:
        live = score_live(model, session, day)
    assert [score.total for score in live] == paperboy(model, replay)(day)


def test_featured_papers_never_stored_from_arxiv_count_by_the_authors_hugging_face_lists(
    database: Database,
    corpus: list[Candidate],
    labels: list[LabelRecord],
    embeddings: dict[str, NDArray[np.float32]],
) -> None:
    stored = {paper.arxiv_id for paper in corpus}
    assert any(record.arxiv_id not in stored for record in labels)  # the case this is about
    _store(database, labels, embeddings, with_authors=True)
    replay = Replay(corpus, embeddings, labels)
    day = replay.day(DAY)
    model = load_model()
    with database.sessions() as session:
        live = _scored_on_its_candidates_authors(model, session, day)
    assert [score.total for score in live] == paperboy(model, replay)(day)


def test_the_signals_of_a_day_are_the_upvotes_seen_up_to_it(
    database: Database, labels: list[LabelRecord], embeddings: dict[str, NDArray[np.float32]]
) -> None:
    _store(database, labels, embeddings)
    ids = [record.arxiv_id for record in labels]
    with database.sessions() as session:
        signals = load_signals(session, ids, DAY)
    assert signals
    assert all(signal.observed_on <= DAY and signal.source == "hf_upvotes" for signal in signals)
    expected = sum(1 for record in labels if record.featured_on <= DAY)
    assert len(signals) == expected
