"""Vectors as stored: L2-normalised float32 packed to bytes, and back (pure)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Matrix = NDArray[np.float32]


class BadVectorsError(ValueError):
    """A matrix that cannot be stored as embeddings; the message says why."""


def normalise(matrix: NDArray[np.floating]) -> Matrix:
    """Rows scaled to unit length, as float32; refuses zero, NaN and infinite rows."""
    rows = np.asarray(matrix, dtype=np.float32)
    if rows.ndim != 2:
        raise BadVectorsError(f"expected a 2-d matrix, got {rows.ndim} dimensions")
    if not np.isfinite(rows).all():
        raise BadVectorsError("the matrix holds NaN or infinite values")
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    if rows.shape[0] and float(norms.min()) == 0.0:
        raise BadVectorsError("the matrix holds an all-zero row")
    unit: Matrix = (rows / norms).astype(np.float32)
    return unit


def pack(vector: Matrix) -> bytes:
    return np.ascontiguousarray(vector, dtype="<f4").tobytes()


def unpack(blob: bytes) -> Matrix:
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def stack(blobs: list[bytes], dimensions: int) -> Matrix:
    """Stored vectors as one matrix (rows in the order given)."""
    if not blobs:
        return np.zeros((0, dimensions), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dimensions).copy()
