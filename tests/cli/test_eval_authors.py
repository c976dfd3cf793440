"""``paperboy eval-authors`` on real authors' papers in files."""

import json
from pathlib import Path

import pytest

from app.cli.main import main
from app.core.config import get_settings
from tests.services.test_author_eval import CORPUS_PATH, EMBEDDINGS_PATH


def _eval_authors(tmp_path: Path, *argv: str) -> int:
    arguments = ["eval-authors", "--corpus", str(CORPUS_PATH), "--embeddings"]
    return main([*arguments, str(EMBEDDINGS_PATH), *argv], get_settings(data_dir=tmp_path))


def test_eval_authors_writes_each_methods_f1_and_oversplit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "authors.json"
    window = ["--from", "2025-03-01", "--to", "2025-05-31"]
    counts = ["--pairs", "6", "--triples", "2", "--hard", "1"]
    assert _eval_authors(tmp_path, *window, *counts, "--out", str(out)) == 0
    results = json.loads(out.read_text())
    assert results["window"] == {"from": "2025-03-01", "to": "2025-05-31"}
    assert results["kinds"] == {"hard": 1, "triple": 2, "pair": 6}
    assert set(results["summary"]) == {"paperboy", "links_only", "one_per_name", "by_category"}
    for summary in results["summary"].values():
        assert 0 <= summary["bcubed_f1"]["mean"] <= 1
        assert 0 <= summary["oversplit"]["mean"] <= 1
    printed = capsys.readouterr().out
    assert "| paperboy |" in printed and "9 merged names" in printed


def test_a_window_without_authors_or_backwards_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "authors.json"
    assert (
        _eval_authors(tmp_path, "--from", "2025-05-01", "--to", "2025-04-01", "--out", str(out))
        == 1
    )
    assert "--to is before --from" in capsys.readouterr().err
    assert (
        _eval_authors(tmp_path, "--from", "2024-01-01", "--to", "2024-12-31", "--out", str(out))
        == 1
    )
    assert "no two authors with 3 papers" in capsys.readouterr().err
    assert not out.exists()


def test_the_verified_method_scores_unlisted_papers_and_counts_skipped_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "verified.json"
    window = ["--from", "2025-03-01", "--to", "2025-05-31", "--method", "verified"]
    counts = ["--pairs", "6", "--triples", "2", "--hard", "1"]
    assert _eval_authors(tmp_path, *window, *counts, "--out", str(out)) == 0
    results = json.loads(out.read_text())
    assert results["midpoint"] == "2025-04-15"
    assert results["names"] + results["skipped"] == 9
    assert set(results["summary"]) == {"verified", "paperboy", "one_per_name"}
    for row in results["rows"]:
        assert 0 < row["listed"] < row["papers"]
        assert row["methods"]["one_per_name"]["split_off"] == 0.0
        assert row["methods"]["one_per_name"]["bcubed_recall"] == 1.0
    printed = capsys.readouterr().out
    assert "| verified |" in printed
    assert f"{results['skipped']} skipped" in printed


def test_a_feed_share_outside_zero_to_one_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "verified.json"
    window = ["--from", "2025-03-01", "--to", "2025-05-31", "--method", "verified"]
    with pytest.raises(SystemExit):
        _eval_authors(tmp_path, *window, "--feed-share", "1.5", "--out", str(out))
    assert "1.5 is not a share in (0, 1]" in capsys.readouterr().err
    assert not out.exists()
