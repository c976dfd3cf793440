"""The taste space: the shipped map, its file, and what it does to real papers."""

import base64
import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import select

from app.core.config import PACKAGED_MODEL_NAME
from app.core.db import session_scope
from app.core.models import Edition, PaperEmbedding
from app.core.vectors import normalise, pack
from digest.profile_match import PoolIndex
from digest.store import edition_view
from digest.taste_space import TasteSpace, TasteSpaceError, load_space, save_space, space_for
from tests.conftest import Database
from tests.digest.editions import TITLES, store_edition
from tests.services.personal import author_day

NAN_MATRIX = base64.b64encode(np.full(4, np.nan, dtype="<f4").tobytes()).decode()


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
    # A real author of 2025-10-22: a day inside the space's training window, so this shows the
    # space at work, not how well it does on new days (docs/benchmarks.md: 2026 pairs).
    corpus, pair = author_day()
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
    assert ranks[1] < ranks[0]


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


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda text: text[: len(text) // 2], "not a taste-space artifact"),
        (lambda text: text.replace('"format": 1', '"format": 9'), "format 9 is not known"),
        (lambda text: text.replace('"shape": [', '"shape": [5, '), "not a taste-space artifact"),
        (lambda text: json.dumps(json.loads(text) | {"matrix": "@@@"}), "taste-space artifact"),
        (lambda text: json.dumps(json.loads(text) | {"matrix": "AAA="}), "whole float32"),
        (lambda text: "[1, 2]", "not a JSON object"),
        (lambda text: json.dumps(json.loads(text) | {"matrix": 5}), "taste-space artifact"),
        (lambda text: json.dumps(json.loads(text) | {"format": True}), "format True"),
        (lambda text: json.dumps(json.loads(text) | {"model": None}), "must be named"),
        (lambda text: json.dumps(json.loads(text) | {"matrix": NAN_MATRIX}), "not finite"),
        (lambda text: json.dumps(json.loads(text) | {"shape": [0, 2], "matrix": ""}), "empty"),
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


def test_a_paper_without_an_embedding_is_the_farthest_in_the_space() -> None:
    corpus, pair = author_day()
    vectors = corpus.vectors[pair.pool].copy()
    vectors[0] = 0.0  # the first paper of the day has no embedding
    index = PoolIndex([""] * len(vectors), vectors, load_space())
    similarities = index.vector_similarities(corpus.vectors[pair.profile])
    assert (similarities[0] == similarities[1:].min(axis=0)).all()


def test_the_digests_edition_view_compares_in_the_space_of_its_model(database: Database) -> None:
    store_edition(database.sessions)
    rng = np.random.default_rng(0)
    vectors = normalise(rng.normal(size=(len(TITLES), 384)))
    with session_scope(database.sessions) as session:
        for row, (arxiv_id, _, _) in enumerate(TITLES):
            session.add(PaperEmbedding(
                arxiv_id=arxiv_id, model=PACKAGED_MODEL_NAME, text_hash="x", dimensions=384,
                vector=pack(vectors[row]), computed_at=datetime(2026, 3, 2, tzinfo=UTC),
            ))  # fmt: skip
    liked = normalise(rng.normal(size=(2, 384)))
    space = load_space()
    with database.sessions() as session:
        edition = session.scalars(select(Edition)).one()
        view = edition_view(session, edition, PACKAGED_MODEL_NAME)
        other = edition_view(session, edition, "another-model")
    mapped = space.apply(vectors) @ space.apply(liked).T
    assert np.allclose(view.index().vector_similarities(liked), mapped, atol=1e-5)
    assert not np.allclose(mapped, vectors @ liked.T, atol=1e-2)
    assert other.space is None
