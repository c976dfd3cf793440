import json
from datetime import date
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import delete, func, select, update

from app.cli.main import main
from app.core.config import Settings
from app.core.models import Paper, PaperEmbedding
from ranking.embedder import make_embedder
from ranking.embeddings import embed_papers, embedding_text, load_vectors
from tests.conftest import Database
from tests.ranking.conftest import SAMPLE_IDS, SAMPLE_MATRIX, sample_vectors

DAY = date(2025, 12, 18)


def _stored_count(database: Database) -> int:
    with database.sessions() as session:
        return session.scalar(select(func.count()).select_from(PaperEmbedding)) or 0


def _some_papers(database: Database, count: int) -> list[Paper]:
    with database.sessions() as session:
        query = select(Paper).where(Paper.announced_on == DAY).order_by(Paper.arxiv_id)
        return list(session.scalars(query.limit(count)))


def _import_args(matrix: Path, ids: Path) -> list[str]:
    return ["import-embeddings", "--matrix", str(matrix), "--ids", str(ids)]


def test_the_embedded_text_is_title_dot_abstract_with_whitespace_collapsed() -> None:
    text = embedding_text("  Deep\n  Nets ", "We   study\tthem.\n")
    assert text == "Deep Nets. We study them."


def test_importing_the_precomputed_matrix_stores_one_vector_per_known_paper(
    sample_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["import-embeddings", "--matrix", str(SAMPLE_MATRIX), "--ids", str(SAMPLE_IDS)]
    assert main([*args, "--quiet"], sample_db.settings) == 0
    assert "stored 491, unchanged 0, unknown ids skipped 0" in capsys.readouterr().out
    assert main([*args, "--quiet"], sample_db.settings) == 0
    assert "stored 0, unchanged 491" in capsys.readouterr().out
    with sample_db.sessions() as session:
        vectors = load_vectors(session, ["2512.14594"], sample_db.settings.embedding_model)
    assert np.linalg.norm(vectors["2512.14594"]) == pytest.approx(1.0, abs=1e-5)


def test_import_embeddings_off_a_terminal_says_how_far_it_got_then_what_it_did(
    sample_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["import-embeddings", "--matrix", str(SAMPLE_MATRIX), "--ids", str(SAMPLE_IDS)]
    assert main(args, sample_db.settings) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1].startswith("vectors: 491 of 491 (100 %), ")
    assert captured.err.splitlines()[-1].endswith(" vectors/s, done")
    assert "stored 491" in captured.out


def test_with_json_logs_no_plain_progress_line_is_printed(
    sample_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = sample_db.settings.model_copy(update={"log_json": True})
    args = ["import-embeddings", "--matrix", str(SAMPLE_MATRIX), "--ids", str(SAMPLE_IDS)]
    assert main(args, settings) == 0
    assert "vectors:" not in capsys.readouterr().err


def test_ids_the_database_does_not_know_are_skipped_and_counted(
    sample_db: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    matrix, ids = tmp_path / "m.npy", tmp_path / "m.ids.json"
    np.save(matrix, np.eye(2, 384, dtype=np.float16))
    ids.write_text(json.dumps(["2512.14594", "0704.0001"]))
    assert (
        main(["import-embeddings", "--matrix", str(matrix), "--ids", str(ids)], sample_db.settings)
        == 0
    )
    assert "stored 1, unchanged 0, unknown ids skipped 1" in capsys.readouterr().out


BAD_INPUTS = {
    "more ids than rows": (np.eye(2, 4), ["a", "b", "c"], "2 rows but there are 3 ids"),
    "ids not a list": (np.eye(2, 4), {"a": 0}, "JSON list of arXiv id strings"),
    "an id twice": (np.eye(2, 4), ["a", "a"], "more than once"),
    "NaN values": (np.full((2, 4), np.nan), ["a", "b"], "NaN or infinite"),
    "an all-zero row": (np.zeros((2, 4)), ["a", "b"], "all-zero row"),
    "a vector, not a matrix": (np.ones(4), ["a"], "2-d matrix"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_a_bad_matrix_is_refused_with_the_reason_and_nothing_stored(
    embedded_db: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    values, ids, reason = BAD_INPUTS[case]
    np.save(tmp_path / "m.npy", values)
    (tmp_path / "m.ids.json").write_text(json.dumps(ids))
    args = _import_args(tmp_path / "m.npy", tmp_path / "m.ids.json")
    assert main(args, embedded_db.settings) == 1
    assert reason in capsys.readouterr().err
    assert _stored_count(embedded_db) == 491


def test_a_file_that_is_not_a_matrix_is_refused(
    sample_db: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "m.npy").write_text("not numpy")
    (tmp_path / "m.ids.json").write_text("[]")
    args = _import_args(tmp_path / "m.npy", tmp_path / "m.ids.json")
    assert main(args, sample_db.settings) == 1
    assert "not a .npy matrix" in capsys.readouterr().err
    assert _stored_count(sample_db) == 0


def _cosines_with_the_corpus_vectors(settings: Settings, papers: list[Paper]) -> np.ndarray:
    vectors = make_embedder(settings).encode([embedding_text(p.title, p.abstract) for p in papers])
    expected = np.stack([sample_vectors()[p.arxiv_id] for p in papers])
    cosines: np.ndarray = (vectors * expected).sum(axis=1) / np.linalg.norm(expected, axis=1)
    return cosines


@pytest.mark.model
def test_the_embedder_reproduces_the_precomputed_corpus_vectors(sample_db: Database) -> None:
    cosines = _cosines_with_the_corpus_vectors(sample_db.settings, _some_papers(sample_db, 8))
    assert cosines.min() >= 0.999


@pytest.mark.model
def test_the_int8_onnx_embedder_agrees_with_the_corpus_vectors(sample_db: Database) -> None:
    settings = sample_db.settings.model_copy(update={"embedding_backend": "onnx-int8"})
    cosines = _cosines_with_the_corpus_vectors(settings, _some_papers(sample_db, 8))
    # int8 weights cost a little agreement: the goal is a mean of 0.99 (benchmarks/embed.py).
    assert cosines.mean() >= 0.99
    assert cosines.min() >= 0.98
    assert list((settings.data_dir / "models").glob("*.int8.onnx"))


@pytest.mark.model
def test_a_second_run_re_embeds_nothing_and_new_text_is_re_embedded(embedded_db: Database) -> None:
    missing = [paper.arxiv_id for paper in _some_papers(embedded_db, 3)]
    embedder = make_embedder(embedded_db.settings)
    with embedded_db.sessions.begin() as session:
        session.execute(delete(PaperEmbedding).where(PaperEmbedding.arxiv_id.in_(missing)))
        first = embed_papers(session, embedder, day=DAY)
        second = embed_papers(session, embedder, day=DAY)
        session.execute(
            update(Paper).where(Paper.arxiv_id == missing[0]).values(abstract="A new abstract.")
        )
        replaced = embed_papers(session, embedder, day=DAY)
    assert (first.papers, first.embedded) == (151, 3)
    assert second.embedded == 0
    assert replaced.embedded == 1
    with embedded_db.sessions() as session:
        vector = load_vectors(session, [missing[1]], embedder.model)[missing[1]]
    assert float(vector @ sample_vectors()[missing[1]]) >= 0.99


def test_embed_all_with_every_vector_current_embeds_nothing(
    embedded_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["embed", "--all", "--quiet"], embedded_db.settings) == 0
    assert "papers 491, embedded 0, up to date 491" in capsys.readouterr().out
    assert _stored_count(embedded_db) == 491


def test_embed_needs_a_date_or_all(embedded_db: Database) -> None:
    with pytest.raises(SystemExit):
        main(["embed"], embedded_db.settings)
