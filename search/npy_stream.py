"""``.npy`` files written a piece at a time: the shape is known first, the values come after.

A writer that holds one chunk of a large array at a time appends it here; the file is the one
``numpy.save`` would have written for the whole array, and reopens with ``numpy.load``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray


class ShortArrayError(ValueError):
    """Fewer or more values were appended than the shape promised."""


@contextmanager
def appended_npy(path: Path, shape: tuple[int, ...], dtype: Any) -> Iterator[BinaryIO]:
    """A ``.npy`` file of ``shape``: append its values in order (``array.tofile(file)``); on
    leaving, their size is checked and the file synced."""
    kind = np.dtype(dtype)
    with path.open("wb") as file:
        header = {"descr": np.lib.format.dtype_to_descr(kind), "fortran_order": False}
        np.lib.format.write_array_header_1_0(file, {**header, "shape": shape})
        start = file.tell()
        yield file
        written = file.tell() - start
        expected = int(np.prod(shape, dtype=np.int64)) * kind.itemsize
        if written != expected:
            raise ShortArrayError(f"{path}: {written} bytes of values, expected {expected}")
        file.flush()
        os.fsync(file.fileno())


def save_synced(path: Path, array: NDArray[Any]) -> None:
    """``array`` as a ``.npy`` file, on disk before this returns."""
    with appended_npy(path, array.shape, array.dtype) as file:
        np.ascontiguousarray(array).tofile(file)
