"""The files the offline evaluations and trainings read: the corpus (daily-listing JSON
lines), Hugging Face Daily Papers label files, and the corpus's embeddings, precomputed or
made with the configured model. None of them touches the database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from app.core.config import Settings
from ranking.scoring import Candidate as Candidate
from ranking.trending.data import LabelRecord as LabelRecord
from ranking.trending.data import TrendingDataError, load_embeddings
from ranking.trending.data import load_corpus as load_corpus
from ranking.trending.data import load_labels as load_labels
from ranking.trending.model import ModelArtifactError

# What unreadable or inconsistent input files raise: one line on standard error, exit 1.
EXPECTED_ERRORS = (TrendingDataError, ModelArtifactError, ValueError)


def corpus_embeddings(
    path: Path | None, corpus: Sequence[Candidate], settings: Settings
) -> Mapping[str, NDArray[np.float32]]:
    """The precomputed matrix at ``path``, or the corpus embedded with the configured model."""
    if path is not None:
        return load_embeddings(path)
    from ranking.embedder import make_embedder
    from ranking.embeddings import embedding_text

    vectors = make_embedder(settings).encode(
        [embedding_text(paper.title, paper.abstract) for paper in corpus]
    )
    return {paper.arxiv_id: vectors[row] for row, paper in enumerate(corpus)}
