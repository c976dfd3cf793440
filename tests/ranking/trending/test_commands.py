"""``paperboy train-ranker`` and ``paperboy eval-trending`` on real records in files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from app.cli.main import main
from app.core.config import get_settings
from app.services.trending import corpus_embeddings
from ranking.scoring import Candidate
from ranking.trending.evaluation import METHODS, METRICS
from tests.ranking.trending.conftest import CORPUS_PATH, LABELS_PATH, input_arguments

EVAL_WINDOW = ["--from", "2025-10-23", "--to", "2025-10-24"]


def _paperboy(tmp_path: Path, *argv: str) -> int:
    return main(list(argv), get_settings(data_dir=tmp_path))


def _train(tmp_path: Path, *extra: str) -> Path:
    tmp_path.mkdir(exist_ok=True)
    out = tmp_path / "model.json"
    status = _paperboy(
        tmp_path,
        "train-ranker",
        *input_arguments(tmp_path),
        "--until",
        "2025-10-23",
        "--out",
        str(out),
        *extra,
    )
    assert status == 0
    return out


def test_train_then_eval_writes_results_in_the_published_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _train(tmp_path)
    out = tmp_path / "results.json"
    status = _paperboy(
        tmp_path,
        "eval-trending",
        *input_arguments(tmp_path),
        *EVAL_WINDOW,
        "--model",
        str(model),
        "--out",
        str(out),
    )
    assert status == 0
    results = json.loads(out.read_text())
    assert results["window"] == {"from": "2025-10-23", "to": "2025-10-24"}
    assert results["model"]["trained_until"] == "2025-10-23"
    assert [day["date"] for day in results["days"]] == ["2025-10-23", "2025-10-24"]
    for day in results["days"]:
        assert day["pool"] == 22 and day["relevant"] >= 1
        assert set(day["methods"]) == set(METHODS)
        assert all(set(metrics) == set(METRICS) for metrics in day["methods"].values())
    summary = results["summary"]["paperboy"]["ndcg@10"]
    assert summary["ci95"][0] <= summary["mean"] <= summary["ci95"][1]
    assert "| paperboy |" in capsys.readouterr().out


def test_days_with_small_pools_are_skipped_and_listed(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    records = [json.loads(line) for line in gzip.decompress(CORPUS_PATH.read_bytes()).splitlines()]
    corpus.write_text("".join(json.dumps(record) + "\n" for record in records[:-5]))
    out = tmp_path / "results.json"
    status = _paperboy(
        tmp_path,
        "eval-trending",
        "--corpus",
        str(corpus),
        "--labels",
        str(LABELS_PATH),
        "--embeddings",
        input_arguments(tmp_path)[-1],
        *EVAL_WINDOW,
        "--out",
        str(out),
    )
    assert status == 0
    results = json.loads(out.read_text())
    assert [day["date"] for day in results["days"]] == ["2025-10-23"]
    [skipped] = results["skipped_days"]
    assert (skipped["date"], skipped["pool"], skipped["reason"]) == (
        "2025-10-24",
        17,
        "pool under 20",
    )


def test_a_bad_label_line_stops_training_with_its_line_number_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        LABELS_PATH.read_text() + '{"arxiv_id": "2510.00001", "daily_date": "soon"}\n'
    )
    out = tmp_path / "model.json"
    arguments = input_arguments(tmp_path)
    arguments[3] = str(labels)
    status = _paperboy(
        tmp_path, "train-ranker", *arguments, "--until", "2025-10-23", "--out", str(out)
    )
    assert status == 1
    assert f"{labels}:56: bad label record" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    ("replaced", "message"),
    [
        ("--corpus", "no such file"),
        ("--embeddings", "embeddings need both"),
    ],
)
def test_a_missing_input_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], replaced: str, message: str
) -> None:
    arguments = input_arguments(tmp_path)
    arguments[arguments.index(replaced) + 1] = str(tmp_path / "absent.jsonl")
    out = tmp_path / "results.json"
    status = _paperboy(tmp_path, "eval-trending", *arguments, *EVAL_WINDOW, "--out", str(out))
    assert status == 1
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_a_model_file_that_is_not_an_artifact_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model.json"
    model.write_text(json.dumps({"model_id": "x", "weights": [1.0]}))
    out = tmp_path / "results.json"
    status = _paperboy(
        tmp_path,
        "eval-trending",
        *input_arguments(tmp_path),
        *EVAL_WINDOW,
        "--model",
        str(model),
        "--out",
        str(out),
    )
    assert status == 1
    assert "not a trending model artifact" in capsys.readouterr().err
    assert not out.exists()


def test_a_window_that_ends_before_it_starts_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.json"
    status = _paperboy(
        tmp_path,
        "eval-trending",
        *input_arguments(tmp_path),
        "--from",
        "2025-10-24",
        "--to",
        "2025-10-23",
        "--out",
        str(out),
    )
    assert status == 1
    assert "--to is before --from" in capsys.readouterr().err


def test_a_malformed_date_is_refused_by_the_parser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as raised:
        _paperboy(tmp_path, "train-ranker", *input_arguments(tmp_path), "--until", "2025-13-01")
    assert raised.value.code == 2
    assert "not a YYYY-MM-DD date" in capsys.readouterr().err


@pytest.mark.model
def test_without_precomputed_embeddings_the_corpus_is_embedded_with_the_real_model(
    tmp_path: Path,
    corpus: list[Candidate],
    embeddings: dict[str, NDArray[np.float32]],
) -> None:
    papers = corpus[:6]
    vectors = corpus_embeddings(None, papers, get_settings(data_dir=tmp_path))
    for paper in papers:
        assert float(vectors[paper.arxiv_id] @ embeddings[paper.arxiv_id]) > 0.99
