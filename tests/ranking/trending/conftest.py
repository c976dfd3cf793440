"""Real records for the trending tests: 110 papers of five October 2025 days, their labels.

See ``tests/fixtures/PROVENANCE.md``: 22 papers a day (every featured one kept), the Hugging
Face records of the featured ones plus earlier records of their authors, and their real
embeddings.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from ranking.scoring import Candidate
from ranking.trending.data import LabelRecord, load_corpus, load_embeddings, load_labels
from tests.conftest import FIXTURES

TRENDING = FIXTURES / "trending"
CORPUS_PATH = TRENDING / "listings_2025-10-20_24_sample.jsonl.gz"
LABELS_PATH = TRENDING / "hf_daily_sample.jsonl"
EMBEDDINGS_PATH = TRENDING / "embeddings_sample.f16.npy"
UNTIL = date(2025, 10, 23)


@pytest.fixture(scope="session")
def corpus() -> list[Candidate]:
    return load_corpus(CORPUS_PATH)


@pytest.fixture(scope="session")
def labels() -> list[LabelRecord]:
    return load_labels([LABELS_PATH])


@pytest.fixture(scope="session")
def embeddings() -> dict[str, NDArray[np.float32]]:
    return load_embeddings(EMBEDDINGS_PATH)


def input_arguments(tmp: Path) -> list[str]:
    """The file arguments both commands take, pointing at the fixtures."""
    return [
        "--corpus",
        str(CORPUS_PATH),
        "--labels",
        str(LABELS_PATH),
        "--embeddings",
        str(EMBEDDINGS_PATH),
    ]
