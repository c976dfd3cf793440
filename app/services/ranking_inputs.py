"""What the ranking commands are handed: a precomputed matrix with its ids, read from their
files and checked (``paperboy import-embeddings``, the demo's sample vectors), and the error
raised when what is stored cannot be ranked.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from app.core.vectors import BadVectorsError, Matrix
from ranking.embeddings import check_matrix
from ranking.errors import RankingInputError as RankingInputError


def read_vector_files(matrix: Path, ids_file: Path) -> tuple[Matrix, list[str]]:
    """The normalised matrix of ``matrix`` (.npy) and the ids of ``ids_file`` (a JSON list);
    ``BadVectorsError`` if they do not fit, ``OSError`` if one cannot be read."""
    return check_matrix(_read_matrix(matrix), _read_ids(ids_file))


def _read_matrix(path: Path) -> np.ndarray:
    try:
        matrix: np.ndarray = np.load(path, allow_pickle=False)
    except ValueError as error:
        raise BadVectorsError(f"{path} is not a .npy matrix: {error}") from None
    return matrix


def _read_ids(path: Path) -> object:
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise BadVectorsError(f"{path} is not JSON: {error}") from None
