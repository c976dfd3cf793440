"""The trending model on files (``paperboy train-ranker``, ``paperboy eval-trending``): trained
on a corpus and its Hugging Face labels before a day, or replayed over a window of days and
compared with the baselines; and the files themselves, which the other offline evaluations
and trainings read too: the corpus (daily-listing JSON lines), Hugging Face Daily Papers label
files, and the corpus's embeddings, precomputed or made with the configured model. None of
this touches the database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from app.core.config import Settings
from ranking.scoring import Candidate as Candidate
from ranking.trending.data import LabelRecord as LabelRecord
from ranking.trending.data import TrendingDataError, load_embeddings
from ranking.trending.data import load_corpus as load_corpus
from ranking.trending.data import load_labels as load_labels
from ranking.trending.model import ModelArtifactError
from ranking.trending.model import TrendingModel as TrendingModel
from ranking.trending.model import load_model as load_model
from ranking.trending.model import save_model as save_model
from ranking.trending.replay import Replay

# What unreadable or inconsistent input files raise: one line on standard error, exit 1.
EXPECTED_ERRORS = (TrendingDataError, ModelArtifactError, ValueError)


def corpus_embeddings(
    path: Path | None, corpus: Sequence[Candidate], settings: Settings
) -> Mapping[str, NDArray[np.float32]]:
    """The precomputed matrix at ``path``, or the corpus embedded with the configured model."""
    if path is not None:
        return load_embeddings(path)
    from ranking.embedder import make_embedder
    from ranking.embeddings import embedding_text

    vectors = make_embedder(settings).encode(
        [embedding_text(paper.title, paper.abstract) for paper in corpus]
    )
    return {paper.arxiv_id: vectors[row] for row, paper in enumerate(corpus)}


def train_ranker(
    settings: Settings,
    corpus_file: Path,
    label_files: Sequence[Path],
    embeddings_file: Path | None,
    until: date,
) -> TrendingModel:
    """The trending model learned from the corpus and the labels dated before ``until``."""
    # scikit-learn loads in a second or so: only the commands that need it import it.
    from ranking.trending.training import train, window_labels

    labels = window_labels(load_labels(label_files), until)
    corpus = [paper for paper in load_corpus(corpus_file) if paper.announced_on < until]
    replay = Replay(corpus, corpus_embeddings(embeddings_file, corpus, settings), labels)
    return train(replay, until)


@dataclass(frozen=True)
class TrendingReplay:
    """A model and the corpus replayed day by day with what was known each morning."""

    model: TrendingModel
    labels: list[LabelRecord]
    replay: Replay

    @property
    def saw_before(self) -> date:
        return date.fromisoformat(self.model.trained_until)


def trending_replay(
    settings: Settings,
    model_file: Path | None,
    corpus_file: Path,
    label_files: Sequence[Path],
    embeddings_file: Path | None,
    end: date,
) -> TrendingReplay:
    """The model of ``model_file`` (None: the shipped one) and the corpus up to ``end``."""
    model = load_model(model_file)
    labels = load_labels(label_files)
    corpus = [paper for paper in load_corpus(corpus_file) if paper.announced_on <= end]
    replay = Replay(corpus, corpus_embeddings(embeddings_file, corpus, settings), labels)
    return TrendingReplay(model, labels, replay)


def evaluate_trending(
    replayed: TrendingReplay, start: date, end: date
) -> tuple[dict[str, Any], str]:
    """The results document of days ``start``..``end`` and its summary as a markdown table."""
    from ranking.trending.evaluation import evaluate, markdown_table

    results = evaluate(replayed.replay, replayed.labels, replayed.model, start, end)
    return results, markdown_table(results)
