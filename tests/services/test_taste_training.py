"""Learning the taste space on a real author's day."""

from dataclasses import replace
from datetime import date

import numpy as np
import pytest

from app.services.personal_inputs import Corpus
from app.services.taste_training import NothingToLearnError, TrainingSettings, train_space
from tests.services.personal import author_day

# The snippet has 24 papers: a lexical part of a few dimensions (the default 128 needs more).
SMALL = TrainingSettings(epochs=1, lexical_dimensions=8)


def _own_probability(vectors: np.ndarray, pool: list[int], profile: list[int], own: int) -> float:
    """The softmax chance of the author's paper among the day's, by cosine to the profile."""
    cosines = vectors[pool] @ vectors[profile].mean(axis=0) / 0.05
    chances = np.exp(cosines - cosines.max())
    return float(chances[pool.index(own)] / chances.sum())


def test_the_space_learned_on_a_pair_puts_the_authors_paper_closer_than_the_embeddings() -> None:
    corpus, pair = author_day()
    (own,) = pair.relevant
    settings = TrainingSettings(epochs=20, learning_rate=0.01, lexical_dimensions=8)
    space = train_space(corpus, pair.day, pair.day, "the-model", settings)
    assert (space.model, space.trained_from, space.trained_until) == (
        "the-model",
        "2025-10-22",
        "2025-10-22",
    )
    assert space.settings["pairs"] == 1 and space.settings["epochs"] == 20
    before = _own_probability(corpus.vectors, pair.pool, pair.profile, own)
    mapped = space.apply(corpus.vectors, corpus.texts)
    after = _own_probability(mapped, pair.pool, pair.profile, own)
    assert after > 2 * before
    assert np.allclose(space.centre, corpus.vectors.mean(axis=0), atol=1e-6)


def test_the_centre_is_the_mean_of_what_was_announced_by_the_last_day_learned() -> None:
    corpus, pair = author_day()
    later = replace(corpus.papers[0], arxiv_id="2510.99999", announced_on=date(2025, 10, 23))
    far = np.full((1, corpus.vectors.shape[1]), 1.0, dtype=np.float32)
    grown = Corpus([*corpus.papers, later], np.vstack([corpus.vectors, far]))
    space = train_space(grown, pair.day, pair.day, "m", SMALL)
    assert np.allclose(space.centre, corpus.vectors.mean(axis=0), atol=1e-6)


def test_the_same_settings_learn_the_same_space() -> None:
    corpus, pair = author_day()
    spaces = [train_space(corpus, pair.day, pair.day, "m", SMALL) for _ in range(2)]
    assert np.allclose(spaces[0].matrix, spaces[1].matrix)
    lexicons = [space.lexicon for space in spaces]
    assert lexicons[0] is not None and lexicons[1] is not None
    assert np.allclose(lexicons[0].projection, lexicons[1].projection)


def test_a_window_without_pairs_has_nothing_to_learn() -> None:
    corpus, _ = author_day()
    with pytest.raises(NothingToLearnError, match="no \\(author, day\\) pair"):
        train_space(corpus, date(2020, 1, 1), date(2020, 2, 1), "m", TrainingSettings())
