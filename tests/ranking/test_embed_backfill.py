"""``paperboy embed --all`` as a backfill: chunks committed as they are stored, so a run
killed at any point is finished by the next, and a device that cannot run says so first."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from sqlalchemy import func, select

from app.cli.main import main
from app.core.db import session_scope
from app.core.models import PaperEmbedding
from ranking.embeddings import check_matrix, import_matrix
from tests.conftest import Database
from tests.ranking.conftest import SAMPLE_IDS, SAMPLE_MATRIX

CHUNK = 40
SAMPLE_PAPERS = 491


def _stored(database: Database) -> int:
    with session_scope(database.sessions) as session:
        return int(session.scalar(select(func.count()).select_from(PaperEmbedding)) or 0)


def _cuda_seen() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def _store_some(database: Database, count: int) -> None:
    """The vectors of the ``count`` papers a backfill reaches first (it goes in id order)."""
    vectors, ids = check_matrix(np.load(SAMPLE_MATRIX), json.loads(SAMPLE_IDS.read_text()))
    first = sorted(range(len(ids)), key=ids.__getitem__)[:count]
    with session_scope(database.sessions) as session:
        chosen = [ids[row] for row in first]
        import_matrix(session, vectors[first], chosen, database.settings.embedding_model)


def test_a_gpu_that_is_not_there_is_named_before_any_work_and_nothing_stored_is_lost(
    sample_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    if _cuda_seen():
        pytest.skip("this torch sees a CUDA GPU")
    _store_some(sample_db, 100)
    changes = {"embedding_device": "cuda", "embedding_chunk_size": CHUNK}
    on_gpu = sample_db.settings.model_copy(update=changes)
    assert main(["embed", "--all", "--quiet"], on_gpu) == 1
    error = capsys.readouterr().err
    assert "PAPERBOY_EMBEDDING_DEVICE=cuda, but torch" in error
    assert "sees no CUDA GPU" in error and "PAPERBOY_EMBEDDING_DEVICE=cpu" in error
    assert _stored(sample_db) == 100


def test_the_int8_backend_on_a_gpu_setting_is_refused_with_the_setting_to_change(
    sample_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    changed = {"embedding_device": "cuda", "embedding_backend": "onnx-int8"}
    settings = sample_db.settings.model_copy(update=changed)
    assert main(["embed", "--all", "--quiet"], settings) == 1
    assert "set PAPERBOY_EMBEDDING_BACKEND=torch" in capsys.readouterr().err


@pytest.mark.model
def test_a_backfill_killed_mid_run_keeps_its_whole_chunks_and_the_rerun_finishes(
    sample_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    # Most vectors stored already: the run has four chunks left to embed, enough to be
    # killed between two of them without embedding the whole sample twice.
    before = SAMPLE_PAPERS - 3 * CHUNK - SAMPLE_PAPERS % CHUNK
    _store_some(sample_db, before)
    settings = sample_db.settings
    environment = {
        **os.environ,
        "PAPERBOY_DATABASE_URL": settings.database_url,
        "PAPERBOY_DATA_DIR": str(settings.data_dir),
        "PAPERBOY_EMBEDDING_CHUNK_SIZE": str(CHUNK),
        # Killed mid-import, it could leave half-written byte code in the checkout.
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    command = [sys.executable, "-m", "app.cli.main", "embed", "--all", "--quiet"]
    with subprocess.Popen(command, cwd=settings.data_dir, env=environment) as run:
        deadline = time.monotonic() + 240
        while (
            _stored(sample_db) < before + CHUNK
            and run.poll() is None
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        run.send_signal(signal.SIGKILL)
    kept = _stored(sample_db)
    # Whole chunks, none half-stored.
    assert before < kept < SAMPLE_PAPERS and (kept - before) % CHUNK == 0
    chunked = settings.model_copy(update={"embedding_chunk_size": CHUNK})
    assert main(["embed", "--all", "--quiet"], chunked) == 0
    report = capsys.readouterr().out
    assert f"papers {SAMPLE_PAPERS}, embedded {SAMPLE_PAPERS - kept}, up to date {kept}" in report
    assert _stored(sample_db) == SAMPLE_PAPERS
