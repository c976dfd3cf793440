"""The trending model served as a Scorer: named components, newcomers, community signals."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import date, timedelta

import numpy as np
import pytest
from numpy.typing import NDArray

from ranking.scoring import Candidate, ScoringContext, Signal
from ranking.trending.model import load_model
from ranking.trending.scorer import TrendingScorer

DAY = date(2025, 10, 24)


def _pool(
    corpus: list[Candidate], embeddings: dict[str, NDArray[np.float32]]
) -> tuple[list[Candidate], NDArray[np.float32]]:
    papers = [paper for paper in corpus if paper.announced_on == DAY]
    return papers, np.stack([embeddings[paper.arxiv_id] for paper in papers])


def test_a_paper_without_labels_or_history_is_still_ranked(
    corpus: list[Candidate], embeddings: dict[str, NDArray[np.float32]]
) -> None:
    papers, vectors = _pool(corpus, embeddings)
    newcomer = replace(papers[0], authors=("Nobody Yet Known",), comment=None)
    scores = TrendingScorer(load_model()).score([newcomer], ScoringContext(DAY, vectors[:1]))
    assert math.isfinite(scores[0].total)
    assert set(scores[0].components) == {
        "prior",
        "author_history",
        "topic_momentum",
        "community",
    }


def test_the_total_is_the_sum_of_its_named_components(
    corpus: list[Candidate], embeddings: dict[str, NDArray[np.float32]]
) -> None:
    papers, vectors = _pool(corpus, embeddings)
    for score in TrendingScorer(load_model()).score(papers, ScoringContext(DAY, vectors)):
        assert score.total == pytest.approx(sum(score.components.values()))


def test_upvotes_raise_a_paper_and_fade_with_age(
    corpus: list[Candidate], embeddings: dict[str, NDArray[np.float32]]
) -> None:
    papers, vectors = _pool(corpus, embeddings)
    scorer, target = TrendingScorer(load_model()), papers[3].arxiv_id

    def community(observed_on: date) -> float:
        signal = Signal(arxiv_id=target, source="hf_upvotes", value=40, observed_on=observed_on)
        context = ScoringContext(DAY + timedelta(days=1), vectors, signals=[signal])
        return scorer.score(papers, context)[3].components["community"]

    fresh = community(DAY + timedelta(days=1))
    old = community(DAY - timedelta(days=5))
    future = community(DAY + timedelta(days=2))
    assert fresh > old > 0
    assert future == 0.0


def test_the_scorer_names_the_model_it_serves() -> None:
    model = load_model()
    scorer = TrendingScorer(model)
    assert (scorer.name, scorer.version) == ("trending", model.model_id)
    assert model.trained_until == "2026-01-01"


def test_a_pool_and_embeddings_of_different_sizes_are_refused(
    corpus: list[Candidate], embeddings: dict[str, NDArray[np.float32]]
) -> None:
    papers, vectors = _pool(corpus, embeddings)
    with pytest.raises(ValueError, match="embeddings"):
        TrendingScorer(load_model()).score(papers, ScoringContext(DAY, vectors[:-1]))
