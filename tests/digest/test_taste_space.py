"""The taste space: the shipped map, its file, and what it does to real papers."""

import base64
import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sqlalchemy import select

from app.core.config import PACKAGED_MODEL_NAME
from app.core.db import session_scope
from app.core.models import Edition, PaperEmbedding
from app.core.vectors import normalise, pack
from app.services.personal_eval import pair_metrics
from app.services.taste_training import TrainingSettings, train_space
from digest.profile_match import PoolIndex, paper_text
from digest.run_inputs import edition_view
from digest.taste_space import (
    LEXICAL_TERMS,
    TasteSpace,
    TasteSpaceError,
    load_space,
    save_space,
    space_for,
)
from tests.conftest import Database
from tests.digest.editions import TITLES, store_edition
from tests.services.personal import author_day, authors_2026

NAN_MATRIX = base64.b64encode(np.full(4, np.nan, dtype="<f4").tobytes()).decode()


def test_the_shipped_space_maps_the_packaged_models_vectors_and_words_to_unit_length() -> None:
    space = space_for(PACKAGED_MODEL_NAME)
    assert space is not None and space.model == PACKAGED_MODEL_NAME and space.lexicon is not None
    assert space.matrix.shape == (384 + 128, 384 + 128) and space.trained_until == "2025-12-31"
    assert space.lexicon.projection.shape == (len(space.lexicon.vocabulary), 128)
    corpus, _ = author_day()
    mapped = space.apply(corpus.vectors[:5], corpus.texts[:5])
    assert np.allclose(np.linalg.norm(mapped, axis=1), 1.0, atol=1e-5)
    # The words count: the same embeddings with their titles and abstracts blanked move.
    assert not np.allclose(mapped, space.apply(corpus.vectors[:5], [""] * 5), atol=1e-2)
    missing = space.apply(np.zeros((2, 384), dtype=np.float32), corpus.texts[:2])  # no embedding
    assert not missing.any()


def test_a_space_with_words_refuses_papers_without_their_texts() -> None:
    corpus, _ = author_day()
    with pytest.raises(TasteSpaceError, match="reads each paper's text: 0 texts for 3 papers"):
        load_space().apply(corpus.vectors[:3])


def test_the_lexical_tfidf_is_the_training_corpus_vectorizers() -> None:
    # The space reads a text at serving time as the training read it (sklearn's TfidfVectorizer
    # with the corpus's vocabulary and idf): any difference would move every paper.
    corpus, pair = author_day()
    space = train_space(
        corpus, pair.day, pair.day, "m", TrainingSettings(epochs=1, lexical_dimensions=4)
    )
    vectorizer = TfidfVectorizer(**LEXICAL_TERMS, sublinear_tf=True)
    expected = vectorizer.fit_transform(corpus.texts)
    assert space.lexicon is not None
    assert space.lexicon.vocabulary == tuple(vectorizer.get_feature_names_out())
    assert np.allclose(space.lexicon.tfidf(corpus.texts).toarray(), expected.toarray(), atol=1e-6)


def test_another_embedding_model_gets_no_space() -> None:
    assert space_for("allenai/specter2") is None


def test_vectors_of_another_size_are_refused_with_the_reason() -> None:
    with pytest.raises(TasteSpaceError, match="maps 384 dimensions, not 4"):
        load_space().apply(normalise(np.ones((2, 4))))


def test_in_the_shipped_space_authors_find_more_of_their_new_papers_on_a_later_day() -> None:
    # 42 real authors of 2026-01-05, after the space's training window: the day's 146 papers
    # ranked by the profile match with and without the space (docs/benchmarks.md has 2,000).
    corpus, found = authors_2026()
    assert len(found) == 42
    texts = [corpus.texts[row] for row in found[0].pool]
    recall = {}
    for name, space in (("raw", None), ("space", load_space())):
        index = PoolIndex(texts, corpus.vectors[found[0].pool], space)
        recall[name] = np.mean(
            [
                pair_metrics(
                    index.match(
                        [corpus.texts[row] for row in pair.profile], corpus.vectors[pair.profile]
                    ),
                    pair,
                )["recall@10"]
                for pair in found
            ]
        )
    assert recall["space"] > recall["raw"] + 0.03


def test_a_saved_space_with_words_loads_as_it_was(tmp_path: Path) -> None:
    corpus, pair = author_day()
    space = train_space(
        corpus, pair.day, pair.day, "m", TrainingSettings(epochs=1, lexical_dimensions=4)
    )
    save_space(space, tmp_path / "space.json")
    again = load_space(tmp_path / "space.json")
    assert again.lexicon is not None and space.lexicon is not None
    assert again.lexicon.vocabulary == space.lexicon.vocabulary
    assert np.allclose(again.lexicon.projection, space.lexicon.projection, rtol=1e-3, atol=1e-4)
    mapped = [s.apply(corpus.vectors, corpus.texts) for s in (space, again)]
    assert np.allclose(mapped[0], mapped[1], atol=1e-3)


def _with_lexicon(fields: dict[str, Any], **changes: object) -> dict[str, Any]:
    return fields | {"lexicon": fields["lexicon"] | changes}


def _vocabulary(fields: dict[str, Any]) -> list[str]:
    return list(fields["lexicon"]["vocabulary"])


ONE_MORE_FLOAT = base64.b64encode(np.zeros(385, dtype="<f4").tobytes()).decode()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda f: _with_lexicon(f, vocabulary=[]), "vocabulary must be a list of words"),
        (lambda f: _with_lexicon(f, vocabulary="graph"), "vocabulary must be a list of words"),
        (lambda f: _with_lexicon(f, vocabulary=[1] * len(_vocabulary(f))), "must be words"),
        # A word twice would load and then fail every edition (sklearn checks at transform).
        (
            lambda f: _with_lexicon(f, vocabulary=_vocabulary(f)[:1] + _vocabulary(f)[:-1]),
            "twice in the vocabulary",
        ),
        (lambda f: _with_lexicon(f, dimensions=5), "cannot reshape"),
        (lambda f: _with_lexicon(f, dimensions=float("inf")), "inf is not a size"),
        (lambda f: _with_lexicon(f, projection="AAAA"), "whole 16-bit numbers"),
        (lambda f: f | {"lexicon": {k: v for k, v in f["lexicon"].items() if k != "idf"}}, "'idf'"),
        # Sizes that numpy would work out itself (-1) or not take at all (Infinity).
        (lambda f: f | {"shape": [f["shape"][0], -1]}, "-1 is not a size"),
        (lambda f: f | {"shape": [float("inf"), 2]}, "inf is not a size"),
        # The map's columns must be the embedding's and the words' dimensions together.
        (lambda f: f | {"centre": ONE_MORE_FLOAT}, "a map of 388 columns for an embedding of 385"),
    ],
)
def test_a_damaged_space_with_words_is_refused_with_the_reason(
    tmp_path: Path, damage: object, message: str
) -> None:
    corpus, pair = author_day()
    path = tmp_path / "space.json"
    save_space(
        train_space(
            corpus, pair.day, pair.day, "m", TrainingSettings(epochs=1, lexical_dimensions=4)
        ),
        path,
    )
    path.write_text(json.dumps(damage(json.loads(path.read_text()))))  # type: ignore[operator]
    with pytest.raises(TasteSpaceError, match=message):
        load_space(path)


def test_a_projection_beyond_float16_is_not_saved(tmp_path: Path) -> None:
    corpus, pair = author_day()
    space = train_space(
        corpus, pair.day, pair.day, "m", TrainingSettings(epochs=1, lexical_dimensions=4)
    )
    assert space.lexicon is not None
    huge = replace(space.lexicon, projection=space.lexicon.projection * 1e6)
    with pytest.raises(TasteSpaceError, match="beyond float16"):
        save_space(replace(space, lexicon=huge), tmp_path / "space.json")
    assert not (tmp_path / "space.json").exists()


def test_a_space_of_the_embedding_alone_still_maps_a_pool_with_texts(tmp_path: Path) -> None:
    # Format 1 (what shipped before the words, and --lexical-dimensions 0) keeps working.
    corpus, pair = author_day()
    space = train_space(
        corpus, pair.day, pair.day, "m", TrainingSettings(epochs=1, lexical_dimensions=0)
    )
    save_space(space, tmp_path / "space.json")
    assert json.loads((tmp_path / "space.json").read_text())["format"] == 1
    again = load_space(tmp_path / "space.json")
    assert again.lexicon is None and again.matrix.shape == (384, 384)
    texts = [corpus.texts[row] for row in pair.pool]
    profile = [corpus.texts[row] for row in pair.profile]
    index = PoolIndex(texts, corpus.vectors[pair.pool], again)
    expected = again.apply(corpus.vectors[pair.pool]) @ again.apply(corpus.vectors[pair.profile]).T
    assert np.allclose(
        index.vector_similarities(corpus.vectors[pair.profile], profile), expected, atol=1e-6
    )


def test_each_liked_papers_words_are_read_once_and_give_every_reader_the_same_match() -> None:
    corpus, pair = author_day()
    texts = [corpus.texts[row] for row in pair.pool]
    profile = [corpus.texts[row] for row in pair.profile]
    vectors = corpus.vectors[pair.profile]
    shared = PoolIndex(texts, corpus.vectors[pair.pool], load_space())
    first = shared.vector_similarities(vectors, profile)
    # A second reader liking the same papers in another order, then one liking only one of them.
    again = shared.vector_similarities(vectors[::-1], profile[::-1])
    one = shared.vector_similarities(vectors[1:2], profile[1:2])
    fresh = PoolIndex(texts, corpus.vectors[pair.pool], load_space())
    assert np.array_equal(again, first[:, ::-1])
    assert np.allclose(one, fresh.vector_similarities(vectors[1:2], profile[1:2]), atol=1e-6)
    assert np.allclose(first, fresh.vector_similarities(vectors, profile), atol=1e-6)
    with pytest.raises(TasteSpaceError, match="2 texts for 3 papers"):
        fresh.vector_similarities(vectors, profile[:2])


def test_a_saved_space_loads_as_it_was(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    space = TasteSpace(
        model="some-model",
        trained_from="2025-01-01",
        trained_until="2025-06-30",
        settings={"epochs": 1},
        matrix=rng.normal(size=(3, 4)).astype(np.float32),
        centre=rng.normal(size=4).astype(np.float32),
    )
    save_space(space, tmp_path / "space.json")
    again = load_space(tmp_path / "space.json")
    assert (again.model, again.trained_until, again.settings) == (
        "some-model",
        "2025-06-30",
        {"epochs": 1},
    )
    assert np.array_equal(again.matrix, space.matrix) and np.array_equal(again.centre, space.centre)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda text: text[: len(text) // 2], "not a taste-space artifact"),
        (lambda text: text.replace('"format": 1', '"format": 9'), "format 9 is not known"),
        (lambda text: text.replace('"shape": [', '"shape": [5, '), "not a taste-space artifact"),
        (lambda text: json.dumps(json.loads(text) | {"matrix": "@@@"}), "taste-space artifact"),
        (lambda text: json.dumps(json.loads(text) | {"matrix": "AAA="}), "whole 32-bit numbers"),
        (lambda text: "[1, 2]", "not a JSON object"),
        (lambda text: json.dumps(json.loads(text) | {"matrix": 5}), "taste-space artifact"),
        (lambda text: json.dumps(json.loads(text) | {"format": True}), "format True"),
        (lambda text: json.dumps(json.loads(text) | {"model": None}), "must be named"),
        (lambda text: json.dumps(json.loads(text) | {"matrix": NAN_MATRIX}), "not finite"),
        (lambda text: json.dumps(json.loads(text) | {"shape": [0, 2], "matrix": ""}), "0 is not"),
    ],
)
def test_a_damaged_file_is_refused_with_the_reason(
    tmp_path: Path, damage: object, message: str
) -> None:
    path = tmp_path / "space.json"
    space = TasteSpace(
        model="m",
        trained_from="2025-01-01",
        trained_until="2025-06-30",
        settings={},
        matrix=np.eye(2, dtype=np.float32),
        centre=np.zeros(2, dtype=np.float32),
    )
    save_space(space, path)
    path.write_text(damage(path.read_text()))  # type: ignore[operator]
    with pytest.raises(TasteSpaceError, match=message):
        load_space(path)
    with pytest.raises(TasteSpaceError, match="no such taste-space file"):
        load_space(tmp_path / "missing.json")


def test_a_file_of_bytes_that_are_not_text_is_refused_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "space.json"
    path.write_bytes(b"\xff\xfe\x00" * 100)
    with pytest.raises(TasteSpaceError, match="unreadable taste-space file: 'utf-8' codec"):
        load_space(path)


def test_a_paper_without_an_embedding_is_the_farthest_in_the_space() -> None:
    corpus, pair = author_day()
    vectors = corpus.vectors[pair.pool].copy()
    vectors[0] = 0.0  # the first paper of the day has no embedding
    index = PoolIndex([corpus.texts[row] for row in pair.pool], vectors, load_space())
    profile = [corpus.texts[row] for row in pair.profile]
    similarities = index.vector_similarities(corpus.vectors[pair.profile], profile)
    assert (similarities[0] == similarities[1:].min(axis=0)).all()


def test_the_digests_edition_view_compares_in_the_space_of_its_model(database: Database) -> None:
    store_edition(database.sessions)
    rng = np.random.default_rng(0)
    vectors = normalise(rng.normal(size=(len(TITLES), 384)))
    with session_scope(database.sessions) as session:
        for row, (arxiv_id, _, _) in enumerate(TITLES):
            session.add(
                PaperEmbedding(
                    arxiv_id=arxiv_id,
                    model=PACKAGED_MODEL_NAME,
                    text_hash="x",
                    dimensions=384,
                    vector=pack(vectors[row]),
                    computed_at=datetime(2026, 3, 2, tzinfo=UTC),
                )
            )
    liked = normalise(rng.normal(size=(2, 384)))
    liked_texts = ["protein folding with language models", "graph neural networks"]
    space = load_space()
    with database.sessions() as session:
        edition = session.scalars(select(Edition)).one()
        view = edition_view(session, edition, PACKAGED_MODEL_NAME)
        other = edition_view(session, edition, "another-model")
    texts = [paper_text(paper.title, paper.abstract) for paper in view.papers]
    mapped = space.apply(vectors, texts) @ space.apply(liked, liked_texts).T
    assert np.allclose(view.index().vector_similarities(liked, liked_texts), mapped, atol=1e-5)
    assert not np.allclose(mapped, vectors @ liked.T, atol=1e-2)
    assert other.space is None
