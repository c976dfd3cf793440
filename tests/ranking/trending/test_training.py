"""Training: deterministic, windowed, and refusing a window with nothing to learn."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest
from numpy.typing import NDArray

from ranking.scoring import Candidate
from ranking.trending.data import LabelRecord
from ranking.trending.replay import Replay
from ranking.trending.training import TrainingDataError, train, window_labels
from tests.ranking.trending.conftest import UNTIL


def _replay(
    corpus: list[Candidate], labels: list[LabelRecord], embeddings: dict[str, NDArray[np.float32]]
) -> Replay:
    window = [paper for paper in corpus if paper.announced_on < UNTIL]
    return Replay(window, embeddings, window_labels(labels, UNTIL))


def test_training_twice_gives_the_same_artifact(
    corpus: list[Candidate], labels: list[LabelRecord], embeddings: dict[str, NDArray[np.float32]]
) -> None:
    first = train(_replay(corpus, labels, embeddings), UNTIL)
    second = train(_replay(corpus, labels, embeddings), UNTIL)
    assert asdict(first) == asdict(second)


def test_the_artifact_records_its_window_and_learns_from_papers_before_it(
    corpus: list[Candidate], labels: list[LabelRecord], embeddings: dict[str, NDArray[np.float32]]
) -> None:
    model = train(_replay(corpus, labels, embeddings), UNTIL)
    before = [paper for paper in corpus if paper.announced_on < UNTIL]
    assert (model.trained_from, model.trained_until) == ("2025-10-20", "2025-10-23")
    assert model.metrics["papers"] == len(before)
    assert 0 < model.metrics["featured"] < len(before)
    assert model.model_id.startswith("trending-blend-2025-10-23-")


def test_a_window_without_featured_papers_is_refused(
    corpus: list[Candidate], embeddings: dict[str, NDArray[np.float32]]
) -> None:
    with pytest.raises(TrainingDataError, match="featured"):
        train(Replay(corpus, embeddings, []), UNTIL)
