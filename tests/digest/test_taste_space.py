"""The taste space: the shipped map, its file, and what it does to real papers."""

import json
from pathlib import Path

import numpy as np
import pytest

from app.core.config import PACKAGED_MODEL_NAME
from app.core.vectors import normalise
from digest.profile_match import PoolIndex
from digest.taste_space import TasteSpace, TasteSpaceError, load_space, save_space, space_for
from tests.services.personal import author_day


def _own_rank(scores: np.ndarray, pool: list[int], relevant: frozenset[int]) -> int:
    (own,) = [position for position, row in enumerate(pool) if row in relevant]
    return int((scores > scores[own]).sum()) + 1


def test_the_shipped_space_maps_the_packaged_models_vectors_to_unit_length() -> None:
    space = space_for(PACKAGED_MODEL_NAME)
    assert space is not None and space.model == PACKAGED_MODEL_NAME
    assert space.matrix.shape == (384, 384) and space.trained_until == "2025-12-31"
    corpus, _ = author_day()
    mapped = space.apply(corpus.vectors[:5])
    assert np.allclose(np.linalg.norm(mapped, axis=1), 1.0, atol=1e-5)
    assert not np.allclose(mapped, corpus.vectors[:5])  # a real map, not the identity
    missing = space.apply(np.zeros((2, 384), dtype=np.float32))  # papers with no embedding
    assert not missing.any()


def test_another_embedding_model_gets_no_space() -> None:
    assert space_for("allenai/specter2") is None


def test_vectors_of_another_size_are_refused_with_the_reason() -> None:
    with pytest.raises(TasteSpaceError, match="maps 384 dimensions, not 4"):
        load_space().apply(normalise(np.ones((2, 4))))


def test_in_the_shipped_space_an_authors_new_paper_ranks_higher_among_their_day() -> None:
    corpus, pair = author_day()  # a real author of 2025-10-22, a day after the training
    texts = [corpus.texts[row] for row in pair.pool]
    profile = [corpus.texts[row] for row in pair.profile]
    ranks = [
        _own_rank(
            PoolIndex(texts, corpus.vectors[pair.pool], space).match(
                profile, corpus.vectors[pair.profile]
            ),
            pair.pool,
            pair.relevant,
        )
        for space in (None, load_space())
    ]
    assert ranks == [4, 3]


def test_a_saved_space_loads_as_it_was(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    space = TasteSpace(
        "some-model", "2025-01-01", "2025-06-30", {"epochs": 1},
        rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=4).astype(np.float32),
    )  # fmt: skip
    save_space(space, tmp_path / "space.json")
    again = load_space(tmp_path / "space.json")
    assert (again.model, again.trained_until, again.settings) == ("some-model", "2025-06-30",
                                                                  {"epochs": 1})  # fmt: skip
    assert np.array_equal(again.matrix, space.matrix) and np.array_equal(again.centre, space.centre)
    assert space_for("some-model", tmp_path / "space.json") is not None
    assert space_for("other-model", tmp_path / "space.json") is None


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda text: text[: len(text) // 2], "not a taste-space artifact"),
        (lambda text: text.replace('"format": 1', '"format": 9'), "format 9 is not known"),
        (lambda text: text.replace('"shape": [', '"shape": [5, '), "not a taste-space artifact"),
        (lambda text: json.dumps(json.loads(text) | {"matrix": "@@@"}), "taste-space artifact"),
        (lambda text: json.dumps(json.loads(text) | {"matrix": "AAA="}), "whole float32"),
    ],
)
def test_a_damaged_file_is_refused_with_the_reason(
    tmp_path: Path, damage: object, message: str
) -> None:
    path = tmp_path / "space.json"
    space = TasteSpace("m", "2025-01-01", "2025-06-30", {}, np.eye(2, dtype=np.float32),
                       np.zeros(2, dtype=np.float32))  # fmt: skip
    save_space(space, path)
    path.write_text(damage(path.read_text()))  # type: ignore[operator]
    with pytest.raises(TasteSpaceError, match=message):
        load_space(path)
    with pytest.raises(TasteSpaceError, match="no such taste-space file"):
        load_space(tmp_path / "missing.json")
