"""A database holding the bundled sample of real papers, and their real precomputed vectors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli.main import main
from app.core.db import session_scope
from ranking.embeddings import check_matrix, import_matrix
from tests.conftest import FIXTURES, SAMPLE_PATH, Database

SAMPLE_MATRIX = FIXTURES / "ranking" / "sample_embeddings.f16.npy"
SAMPLE_IDS = FIXTURES / "ranking" / "sample_embeddings.ids.json"


def sample_vectors() -> dict[str, np.ndarray]:
    """The corpus file's vectors of the sample's 491 papers, by id."""
    matrix = np.load(SAMPLE_MATRIX).astype(np.float32)
    return dict(zip(json.loads(SAMPLE_IDS.read_text()), matrix, strict=True))


@pytest.fixture
def sample_db(database: Database) -> Database:
    """The sample imported: three announcement days, 2025-12-17 .. 2025-12-19."""
    assert main(["import", str(SAMPLE_PATH), "--quiet"], database.settings) == 0
    return database


@pytest.fixture
def embedded_db(sample_db: Database) -> Database:
    """The sample with every paper's precomputed vector stored (as `import-embeddings` stores
    them, without the search index files that command also writes, which would slow every test)."""
    vectors, ids = check_matrix(np.load(SAMPLE_MATRIX), json.loads(SAMPLE_IDS.read_text()))
    with session_scope(sample_db.sessions) as session:
        import_matrix(session, vectors, ids, sample_db.settings.embedding_model)
    return sample_db
