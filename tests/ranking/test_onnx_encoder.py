"""The int8 query model loaded without torch: same tokens, close vectors, the same best papers."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.core.config import Settings
from ranking.embedder import query_embedder, resolve_model_path
from ranking.embeddings import embedding_text
from ranking.onnx_encoder import (
    INPUTS,
    OnnxEncoder,
    model_path,
    query_encoder,
    read_pooling,
    read_tokenizer,
    token_arrays,
)
from search.query import FUSION, Filters, Found
from search.searcher import make_searcher
from tests.conftest import SAMPLE_PATH, Database

SOURCE = Path(resolve_model_path(Settings().embedding_model))
# How far the int8 query model's closeness to a paper may be from torch's: twice the typical
# gap (0.005 to 0.01 on the sample's queries and papers).
INT8_ERROR = 0.02
# A reader's queries of the sample's papers (AnimaMimic, a mixture-of-experts paper).
QUERIES = (
    "bring a still 3D character model to life using motion from generated clips",
    "sparse mixture of experts",
)


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """200 real titles and abstracts, some past the 256-token limit."""
    with gzip.open(SAMPLE_PATH, "rt") as lines:
        records = [json.loads(line) for line in lines][:200]
    return [embedding_text(r["title"], r["summary"]) for r in records]


@pytest.fixture(scope="module")
def built(int8_query_model: Path) -> Path:
    """The int8 model, built once a session (tests/conftest.py)."""
    return int8_query_model


def test_the_tokens_are_autotokenizers(texts: list[str]) -> None:
    from transformers import AutoTokenizer

    limit = read_pooling(SOURCE).max_tokens
    reference = AutoTokenizer.from_pretrained(str(SOURCE))
    for start in range(0, len(texts), 32):
        batch = texts[start : start + 32]
        expected = reference(batch, padding=True, truncation=True, max_length=limit)
        ours = token_arrays(read_tokenizer(SOURCE, limit), batch)
        for name in INPUTS:
            assert ours[name].tolist() == expected[name], name
    assert max(len(ids) for ids in reference(texts)["input_ids"]) > limit  # cut where needed


@pytest.mark.model
def test_the_vectors_are_those_of_the_autotokenizer_path(built: Path, texts: list[str]) -> None:
    from transformers import AutoTokenizer

    # Every fourth text: the path is the same for each, and some are still past the limit.
    texts = texts[::4]
    encoder = OnnxEncoder.open(built, SOURCE, threads=1)
    # One text a batch on both sides: int8 activations are scaled per batch, padding included.
    ours = encoder.encode(texts, batch_size=1)
    # The former path: transformers' tokenizer feeding the same model, mean pooled.
    tokenizer = AutoTokenizer.from_pretrained(str(SOURCE))
    session = encoder._session  # the model itself is not under test here
    pooled = np.empty_like(ours)
    for row, text in enumerate(texts):
        tokens = tokenizer([text], truncation=True, max_length=256, return_tensors="np")
        hidden = session.run(None, {name: tokens[name].astype(np.int64) for name in INPUTS})[0]
        pooled[row] = hidden[0].mean(axis=0)
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    assert np.min(np.sum(ours * pooled, axis=1)) > 0.9999


@pytest.mark.model
def test_a_cached_model_encodes_a_query_without_importing_torch(
    built: Path, tmp_path: Path
) -> None:
    _place(built, tmp_path)
    script = (
        "import sys; from pathlib import Path; from app.core.config import Settings;"
        "from ranking.onnx_encoder import query_encoder;"
        "vector = query_encoder(Settings(data_dir=Path(sys.argv[1]))).encode(['graph neural"
        " networks'])[0];"
        "heavy = sorted({'torch', 'transformers'} & set(sys.modules));"
        "print(round(float(vector @ vector), 3), heavy)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["1.0", "[]"]


@pytest.mark.model
def test_the_int8_query_model_finds_torchs_top_result_among_its_first_three(
    built: Path, embedded_db: Database
) -> None:
    # Not "the same top result": for these queries the first two papers lie a few hundredths
    # apart, a gap that onnxruntime's or numpy's next release may close. What must hold is the
    # int8 weights' bounded loss (the embedder's floor, tests/ranking/test_embeddings.py) and
    # that a reader still sees torch's best paper at the top of the page, unless its meaning
    # lies within the int8 model's error of the admission threshold: then any approximate
    # query model may leave it out (AnimaMimic's is 0.505 by torch; on a CPU without VNNI the
    # int8 model reads 0.497).
    _place(built, embedded_db.settings.data_dir)
    vectors, tops = {}, {}
    for backend in ("torch", "onnx-int8"):
        settings = embedded_db.settings.model_copy(
            update={"search_semantic": True, "search_query_backend": backend}
        )
        vectors[backend] = np.asarray(query_embedder(settings).encode(list(QUERIES)))
        searcher = make_searcher(settings, embedded_db.sessions, query_embedder)
        tops[backend] = [_first(searcher.search(query, Filters()), 3) for query in QUERIES]
    assert np.min(np.sum(vectors["torch"] * vectors["onnx-int8"], axis=1)) >= 0.98
    papers = _paper_vectors(embedded_db, [torchs[0] for torchs in tops["torch"]])
    for n, (torchs, int8s) in enumerate(zip(tops["torch"], tops["onnx-int8"], strict=True)):
        closeness = {name: float(vectors[name][n] @ papers[n]) for name in vectors}
        assert abs(closeness["torch"] - closeness["onnx-int8"]) < INT8_ERROR
        at_the_edge = abs(closeness["onnx-int8"] - FUSION.strong_meaning) < INT8_ERROR
        assert torchs[0] in int8s or at_the_edge


def _paper_vectors(database: Database, arxiv_ids: list[str]) -> list[np.ndarray]:
    """The papers' vectors as torch makes them (the store's vectors are torch's)."""
    with gzip.open(SAMPLE_PATH, "rt") as lines:
        records = {r["id"]: r for r in map(json.loads, lines)}
    texts = [embedding_text(records[i]["title"], records[i]["summary"]) for i in arxiv_ids]
    settings = database.settings.model_copy(update={"search_query_backend": "torch"})
    return list(np.asarray(query_embedder(settings).encode(texts)))


@pytest.mark.model
def test_a_missing_model_is_built_once_for_the_query_encoder(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    vector = query_encoder(settings).encode(["graph neural networks"])[0]
    assert model_path(SOURCE, tmp_path / "models").exists()
    assert vector.shape == (384,)


def _place(built: Path, data_dir: Path) -> None:
    """The built model where a web process of ``data_dir`` looks for it."""
    (data_dir / "models").mkdir(parents=True, exist_ok=True)
    shutil.copy(built, data_dir / "models" / built.name)


def _first(found: Found, count: int) -> list[str]:
    return [found.ids[match.row] for match in found.matches[:count]]


@pytest.mark.model
def test_the_embed_step_builds_the_query_model_so_web_processes_need_no_torch(
    database: Database,
) -> None:
    from app.services.editions import embed

    settings = database.settings.model_copy(update={"search_query_backend": "onnx-int8"})
    assert not model_path(SOURCE, settings.data_dir / "models").exists()
    embed(settings, database.sessions, None)
    assert model_path(SOURCE, settings.data_dir / "models").exists()
