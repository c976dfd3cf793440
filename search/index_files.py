"""The search index kept on disk, so that web processes open it instead of building it.

A directory (``DATA_DIR/search-index``) holds generations, each a complete index in its own
subdirectory, and ``current``, a file naming the generation to read. A writer fills a hidden
staging directory, renames it to a new generation and then replaces ``current`` (both renames
are atomic), so a reader sees the old index or the new one, never half of one. The last two
generations are kept: a process that read ``current`` just before a switch can still open
what it named.

Arrays are ``.npy`` files opened memory-mapped: the vectors (float32, see
:data:`search.index.VECTOR_DTYPE`), and the keyword index as
the three arrays of its papers x terms CSC matrix, so that a query reads only its terms'
columns, and processes on one machine share the pages. Text (ids, terms, category names) is
one entry a line. :func:`open_current` checks what it reads and raises
:class:`IndexFilesError` on anything that does not add up; its callers rebuild.

Large arrays are written a piece at a time (:func:`appended_npy`): the shape is known first,
the values come after. The file is the one ``numpy.save`` would have written for the whole
array, and reopens with ``numpy.load``.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from search.index import VECTOR_DTYPE, Index, StoreState, reopen_terms

FORMAT = 1
POINTER = "current"
LOCK = "build.lock"
STAGING_PREFIX = ".staging-"
GENERATION_PREFIX = "g"
# A staging directory this old was left by a writer that died; it is removed.
ABANDONED_SECONDS = 3600.0


class IndexFilesError(ValueError):
    """A generation that cannot be read as an index; the message says why."""


def index_directory(data_dir: Path) -> Path:
    return data_dir / "search-index"


@contextmanager
def build_lock(directory: Path) -> Iterator[None]:
    """One builder at a time across processes: the others wait, then find its generation."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / LOCK).open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def publish(directory: Path, fill: Callable[[Path], None]) -> str:
    """A new generation, its files written by ``fill`` into an empty directory, made current
    once ``fill`` returns; returns its name. (:mod:`search.index_writer` writes the files.)"""
    directory.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=directory))
    try:
        # mkdtemp's 0700 would hide it from web processes running as another user.
        staging.chmod(0o755)
        fill(staging)
        _sync(staging)
        generation = f"{GENERATION_PREFIX}{time.time_ns()}-{os.getpid()}"
        staging.rename(directory / generation)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    previous = current_generation(directory)
    _point_to(directory, generation)
    _remove_old(directory, keep={generation, previous})
    return generation


def current_generation(directory: Path) -> str | None:
    """The generation ``current`` names; None when there is none (or it names nothing)."""
    try:
        name = (directory / POINTER).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    if not name.startswith(GENERATION_PREFIX) or "/" in name or name in (".", ".."):
        return None
    return name


def open_current(directory: Path, model: str) -> Index | None:
    """The current generation, memory-mapped; None when there is none yet.

    Raises :class:`IndexFilesError` when it is unreadable or was built for another model.
    """
    generation = current_generation(directory)
    if generation is None:
        return None
    try:
        return open_generation(directory / generation, model)
    except (OSError, ValueError, KeyError, TypeError) as error:
        if isinstance(error, IndexFilesError):
            raise
        raise IndexFilesError(f"{directory / generation}: {error}") from error


def open_generation(path: Path, model: str) -> Index:
    meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
    if meta.get("format") != FORMAT:
        raise IndexFilesError(f"{path}: format {meta.get('format')!r}, expected {FORMAT}")
    if meta["model"] != model:
        raise IndexFilesError(f"{path}: vectors of {meta['model']}, not {model}")
    papers = int(meta["papers"])
    ids = _read_lines(path / "ids.txt", papers)
    announced = _load(path / "announced.npy", (papers,), np.int64)
    has_vector = _load(path / "has_vector.npy", (papers,), np.bool_)
    vectors = _load(path / "vectors.npy", (papers, int(meta["dimensions"])), VECTOR_DTYPE)
    terms, keyword_matrix = _open_keywords(path, papers, int(meta["terms"]))
    return Index(
        ids=ids,
        position={arxiv_id: row for row, arxiv_id in enumerate(ids)},
        announced=announced,
        by_category=_open_categories(path, papers),
        terms=terms,
        keyword_matrix=keyword_matrix,
        vectors=vectors,
        has_vector=has_vector,
        paper_count=papers,
        state=StoreState(int(meta["store_papers"]), str(meta["fingerprint"])),
        generation=path.name,
    )


def current_state(directory: Path, model: str) -> StoreState | None:
    generation = current_generation(directory)
    if generation is None:
        return None
    try:
        meta = json.loads((directory / generation / "meta.json").read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT or meta.get("model") != model:
            return None
        return StoreState(int(meta["store_papers"]), str(meta["fingerprint"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _open_keywords(path: Path, papers: int, terms: int) -> tuple[Any, Any]:
    if terms == 0:
        return None, None
    from scipy.sparse import csc_matrix  # type: ignore[import-untyped]

    vocabulary = _read_lines(path / "terms.txt", terms)
    idf = np.load(path / "idf.npy")
    indptr = _load(path / "keywords.indptr.npy", (terms + 1,), None)
    data = _load(path / "keywords.data.npy", (int(indptr[-1]),), np.float32)
    indices = _load(path / "keywords.indices.npy", (int(indptr[-1]),), None)
    if idf.shape != (terms,):
        raise IndexFilesError(f"{path}: {idf.shape[0]} idf values for {terms} terms")
    # Given arrays of its own dtypes, scipy keeps them (no copy): the matrix stays mapped.
    # scipy comes with scikit-learn: imported only when an index is opened.
    matrix = csc_matrix((data, indices, indptr), shape=(papers, terms), copy=False)
    return reopen_terms(vocabulary, idf), matrix


def _open_categories(path: Path, papers: int) -> dict[str, Any]:
    names = _read_lines(path / "categories.txt", None)
    offsets = _load(path / "category_offsets.npy", (len(names) + 1,), np.int64)
    rows = _load(path / "category_rows.npy", (int(offsets[-1]),), np.int64)
    if len(rows) and (rows.min() < 0 or rows.max() >= papers):
        raise IndexFilesError(f"{path}: a category names a row beyond {papers} papers")
    return {name: rows[offsets[i] : offsets[i + 1]] for i, name in enumerate(names)}


def _load(path: Path, shape: tuple[int, ...], dtype: Any) -> Any:
    array = np.load(path, mmap_mode="r", allow_pickle=False)
    if array.shape != shape or (dtype is not None and array.dtype != dtype):
        raise IndexFilesError(f"{path}: {array.dtype}{array.shape}, expected {dtype}{shape}")
    return array


def _read_lines(path: Path, count: int | None) -> list[str]:
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n") if text else []
    if count is not None and len(lines) != count:
        raise IndexFilesError(f"{path}: {len(lines)} lines, expected {count}")
    return lines


def write_lines(path: Path, lines: list[str]) -> None:
    # No entry holds a newline: ids, category names and terms (runs of word characters).
    write_text(path, "\n".join(lines))


def write_text(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())


def _point_to(directory: Path, generation: str) -> None:
    staged = directory / f"{STAGING_PREFIX}{POINTER}-{os.getpid()}"
    write_text(staged, generation + "\n")
    staged.replace(directory / POINTER)
    _sync(directory)


def _sync(directory: Path) -> None:
    """The directory's entries on disk (a rename survives a power cut only after this)."""
    handle = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _remove_old(directory: Path, keep: set[str | None]) -> None:
    for entry in directory.iterdir():
        if entry.is_dir() and (_replaced(entry, keep) or _abandoned(entry)):
            shutil.rmtree(entry, ignore_errors=True)


def _replaced(entry: Path, keep: set[str | None]) -> bool:
    return entry.name.startswith(GENERATION_PREFIX) and entry.name not in keep


def _abandoned(entry: Path) -> bool:
    old = time.time() - entry.stat().st_mtime > ABANDONED_SECONDS
    return entry.name.startswith(STAGING_PREFIX) and old


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
