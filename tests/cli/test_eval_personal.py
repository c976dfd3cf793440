"""``paperboy eval-personal`` on a real author's day in files."""

import json
from pathlib import Path

import pytest

from app.cli.main import main
from app.core.config import get_settings
from tests.services.personal import CORPUS_PATH, DAY, EMBEDDINGS_PATH

METHODS = {"asl_svm", "mean_cosine", "max_cosine", "paperboy", "paperboy_corpus_tfidf"}


def _eval_personal(tmp_path: Path, *argv: str) -> int:
    arguments = ["eval-personal", "--corpus", str(CORPUS_PATH), "--embeddings",
                 str(EMBEDDINGS_PATH), *argv]  # fmt: skip
    return main(arguments, get_settings(data_dir=tmp_path))


def test_eval_personal_writes_results_in_eval_trendings_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.json"
    assert _eval_personal(tmp_path, "--from", DAY, "--to", DAY, "--out", str(out)) == 0
    results = json.loads(out.read_text())
    assert results["window"] == {"from": DAY, "to": DAY}
    assert results["pairs_found"] == 1
    assert [(p["author"], p["profile"], p["pool"]) for p in results["pairs"]] == [
        ("jihua-zhu", 3, 21)
    ]
    assert set(results["summary"]) == METHODS == set(results["ms_per_pair"])
    for summary in results["summary"].values():
        low, high = summary["ndcg@10"]["ci95"]
        assert low <= summary["ndcg@10"]["mean"] <= high
    assert set(results["paperboy_over_asl_svm"]) == {"recall@10", "mrr", "ndcg@10"}
    assert "| paperboy |" in capsys.readouterr().out


def test_a_window_that_ends_before_it_starts_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.json"
    assert _eval_personal(tmp_path, "--from", DAY, "--to", "2025-10-01", "--out", str(out)) == 1
    assert "--to is before --from" in capsys.readouterr().err
    assert not out.exists()
