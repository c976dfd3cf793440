"""``paperboy eval-personal`` on a real author's day in files."""

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from app.cli.main import main
from app.core.config import get_settings
from digest.taste_space import load_space, save_space
from tests.services.personal import CORPUS_PATH, DAY, EMBEDDINGS_PATH

METHODS = {
    "asl_svm",
    "mean_cosine",
    "max_cosine",
    "paperboy",
    "paperboy_corpus_tfidf",
    "paperboy_raw_embeddings",
}


def _command(tmp_path: Path, command: str, *argv: str) -> int:
    arguments = [command, "--corpus", str(CORPUS_PATH), "--embeddings", str(EMBEDDINGS_PATH), *argv]
    return main(arguments, get_settings(data_dir=tmp_path))


def _eval_personal(tmp_path: Path, *argv: str) -> int:
    return _command(tmp_path, "eval-personal", *argv)


def test_eval_personal_writes_results_in_eval_trendings_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.json"
    assert _eval_personal(tmp_path, "--from", DAY, "--to", DAY, "--out", str(out)) == 0
    results = json.loads(out.read_text())
    assert results["window"] == {"from": DAY, "to": DAY}
    # The packaged model's vectors: the shipped taste space, and the raw match beside it.
    assert results["settings"]["taste_space"] == {
        "model": "all-MiniLM-L6-v2",
        "trained_from": "2025-04-01",
        "trained_until": "2025-12-31",
        "lexical_dimensions": 128,
    }
    assert results["pairs_found"] == 1
    assert [(p["author"], p["profile"], p["pool"]) for p in results["pairs"]] == [
        ("jihua-zhu", 3, 21)
    ]
    assert set(results["summary"]) == METHODS == set(results["ms_per_pair"])
    for summary in results["summary"].values():
        low, high = summary["ndcg@10"]["ci95"]
        assert low <= summary["ndcg@10"]["mean"] <= high
    assert set(results["paperboy_over_asl_svm"]) == {"recall@10", "mrr", "ndcg@10"}
    printed = capsys.readouterr()
    assert "| paperboy |" in printed.out
    # The day is inside the shipped space's training window, and the run says so.
    assert "the taste space saw data until 2026-01-01, after --from 2025-10-22" in printed.err


def test_a_window_that_ends_before_it_starts_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.json"
    assert _eval_personal(tmp_path, "--from", DAY, "--to", "2025-10-01", "--out", str(out)) == 1
    assert "--to is before --from" in capsys.readouterr().err
    assert not out.exists()


def _train(tmp_path: Path, *argv: str) -> int:
    # The snippet's 24 papers have too few words for the default 128 lexical dimensions.
    return _command(tmp_path, "train-taste-space", "--lexical-dimensions", "8", *argv)


def test_a_space_trained_from_the_command_line_is_what_eval_personal_uses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space = tmp_path / "models" / "space.json"
    assert _train(tmp_path, "--from", DAY, "--until", "2025-10-23", "--out", str(space)) == 0
    assert "learned on 1 pairs of 1 days, 2025-10-22..2025-10-22" in capsys.readouterr().out
    out = tmp_path / "results.json"
    assert (
        _eval_personal(
            tmp_path, "--from", DAY, "--to", DAY, "--taste-space", str(space), "--out", str(out)
        )
        == 0
    )
    used = json.loads(out.read_text())["settings"]["taste_space"]
    assert used == {
        "model": "all-MiniLM-L6-v2",
        "trained_from": DAY,
        "trained_until": DAY,
        "lexical_dimensions": 8,
    }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--from", DAY, "--until", DAY], "--until is not after --from"),
        (["--from", "2020-01-01", "--until", "2020-02-01"], "no (author, day) pair"),
        (["--from", DAY, "--until", "2025-10-23", "--epochs", "0"], "at least 1"),
        (
            ["--from", DAY, "--until", "2025-10-23", "--lexical-dimensions", "-1"],
            "must not be negative",
        ),
        # The snippet's 24 papers cannot carry 128 dimensions of words: refused, not cut short.
        (
            ["--from", DAY, "--until", "2025-10-23", "--lexical-dimensions", "128"],
            "too few for 128 lexical dimensions",
        ),
    ],
)
def test_training_without_anything_to_learn_is_refused_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    out = tmp_path / "space.json"
    assert _train(tmp_path, *argv, "--out", str(out)) == 1
    assert message in capsys.readouterr().err
    assert not out.exists()


def _damaged(path: Path) -> None:
    path.write_text("{not json")


def _of_another_model(path: Path) -> None:
    save_space(replace(load_space(), model="allenai/specter2"), path)


@pytest.mark.parametrize(
    ("write", "message"),
    [
        (_damaged, "not a taste-space artifact"),
        (_of_another_model, "maps vectors of allenai/specter2"),
    ],
)
def test_a_taste_space_it_cannot_use_is_refused_by_eval_personal(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    write: Callable[[Path], None],
    message: str,
) -> None:
    space = tmp_path / "space.json"
    write(space)
    out = tmp_path / "results.json"
    assert (
        _eval_personal(
            tmp_path, "--from", DAY, "--to", DAY, "--taste-space", str(space), "--out", str(out)
        )
        == 1
    )
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_a_space_that_cannot_be_written_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    assert _train(tmp_path, "--from", DAY, "--until", "2025-10-23", "--out", str(folder)) == 1
    assert f"cannot write {folder}" in capsys.readouterr().err
    assert folder.is_dir() and not any(folder.iterdir())


LABELS = Path(__file__).resolve().parent.parent / "fixtures/trending/hf_daily_sample.jsonl"


def _with_labels(tmp_path: Path, *argv: str) -> tuple[int, Path]:
    out = tmp_path / "results.json"
    labelled = ("--from", DAY, "--to", DAY, "--labels", str(LABELS), "--out", str(out))
    return _eval_personal(tmp_path, *labelled, *argv), out


def test_with_labels_the_digest_method_ranks_each_day_after_the_trending_edition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _with_labels(tmp_path)
    assert code == 0
    results = json.loads(out.read_text())
    assert set(results["summary"]) == METHODS | {"digest"}
    assert results["settings"]["trending_model"].startswith("trending-")
    assert results["settings"]["edition_size"] == 100
    printed = capsys.readouterr()
    assert "| digest |" in printed.out
    assert "the trending model saw data until 2026-01-01, after --from 2025-10-22" in printed.err


def test_a_missing_trending_model_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _with_labels(tmp_path, "--trending-model", str(tmp_path / "none.json"))
    assert code == 1
    assert "no such model file" in capsys.readouterr().err
    assert not out.exists()
