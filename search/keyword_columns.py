"""The keyword index written to disk in bounded memory, whatever the number of papers.

Fitting scikit-learn's vectorizer on every paper at once holds every text, the papers x terms
matrix by rows and again by columns. Here texts come a chunk at a time: their words are
counted and the counts spilled to a scratch file (:meth:`KeywordColumns.add`). Once every
chunk is in, the terms are put in the vectorizer's order and weighted as it weights them, a
chunk at a time again, and each entry goes to a bucket file by its column. Each bucket, sorted,
is then appended to the CSC arrays (:meth:`KeywordColumns.write`). Memory holds the terms and
one chunk or one bucket; the result is the vectorizer's, array for array (``make_index``).
"""

from __future__ import annotations

import shutil
from array import array
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import pairwise, repeat
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from search.index import TERM_SETTINGS
from search.index_files import appended_npy, save_synced

# Entries a column bucket holds, about: 12 bytes each on disk, sorted in memory one at a time.
BUCKET_ENTRIES = 16_000_000
WEIGHT_DTYPE = np.float32
SPILLED = ("rows", "columns", "counts")
SPILLED_DTYPES = (np.int32, np.int32, WEIGHT_DTYPE)


@dataclass(frozen=True, slots=True)
class _Chunk:
    first_row: int
    rows: int
    entries: int
    offset: int  # entries spilled before this chunk


class KeywordColumns:
    """Term counts of papers added chunk by chunk, written out as the tf-idf CSC matrix."""

    def __init__(self, scratch: Path, bucket_entries: int = BUCKET_ENTRIES) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer  # heavy; only when writing

        self._analyze = TfidfVectorizer(**TERM_SETTINGS).build_analyzer()
        self._scratch = scratch
        self._bucket_entries = bucket_entries
        self._vocabulary: dict[str, int] = {}  # term -> its number in the order first met
        self._document_frequency = np.zeros(0, dtype=np.int64)
        self._chunks: list[_Chunk] = []
        self.papers = 0
        scratch.mkdir(parents=True)  # new: its files are appended to

    def add(self, texts: Sequence[str]) -> None:
        """Count the words of the next papers (rows follow on from the ones added before)."""
        rows, columns, counts = self._counted(texts)
        offset = self._chunks[-1].offset + self._chunks[-1].entries if self._chunks else 0
        self._chunks.append(_Chunk(self.papers, len(texts), len(rows), offset))
        for name, values, dtype in zip(
            SPILLED, (rows, columns, counts), SPILLED_DTYPES, strict=True
        ):
            with (self._scratch / f"counts.{name}").open("ab") as file:
                np.asarray(values, dtype=dtype).tofile(file)
        found = np.bincount(np.asarray(columns, dtype=np.int64), minlength=len(self._vocabulary))
        frequency = np.zeros(len(self._vocabulary), dtype=np.int64)
        frequency[: len(self._document_frequency)] = self._document_frequency
        self._document_frequency = frequency + found
        self.papers += len(texts)

    def write(self, path: Path) -> list[str]:
        """The CSC arrays, idf and nothing else into ``path``; returns the terms in column
        order (none when no paper has a word: then nothing is written)."""
        try:
            if not self._vocabulary:
                return []
            terms, column_of = _ordered(self._vocabulary)
            frequency = np.zeros(len(terms), dtype=np.int64)
            frequency[column_of] = self._document_frequency
            idf = inverse_document_frequency(frequency, self.papers)
            indptr = np.concatenate([[0], np.cumsum(frequency)])
            bucket_of = (indptr[:-1] // self._bucket_entries).astype(np.int64)
            buckets = int(bucket_of[-1]) + 1
            self._fill_buckets(column_of, idf, bucket_of, buckets)
            for name in SPILLED:  # weighted into the buckets: room for the columns
                (self._scratch / f"counts.{name}").unlink(missing_ok=True)
            self._write_columns(path, indptr, buckets)
            save_synced(path / "idf.npy", idf.astype(np.float64))
            return terms
        finally:
            shutil.rmtree(self._scratch, ignore_errors=True)

    def _counted(self, texts: Sequence[str]) -> tuple[array[int], array[int], array[int]]:
        """Each paper's terms and how often it uses each, in the vectorizer's tokens."""
        vocabulary, analyze = self._vocabulary, self._analyze
        rows, columns, counts = array("l"), array("l"), array("l")
        for row, text in enumerate(texts, start=self.papers):
            used: dict[int, int] = {}
            for term in analyze(text):
                column = vocabulary.setdefault(term, len(vocabulary))
                used[column] = used.get(column, 0) + 1
            rows.extend(repeat(row, len(used)))
            columns.extend(used)
            counts.extend(used.values())
        return rows, columns, counts

    def _spilled(self, chunk: _Chunk) -> Iterator[NDArray[Any]]:
        for name, dtype in zip(SPILLED, SPILLED_DTYPES, strict=True):
            size = np.dtype(dtype).itemsize
            yield np.fromfile(
                self._scratch / f"counts.{name}",
                dtype=dtype,
                count=chunk.entries,
                offset=chunk.offset * size,
            )

    def _fill_buckets(
        self,
        column_of: NDArray[np.int64],
        idf: NDArray[np.float32],
        bucket_of: NDArray[np.int64],
        buckets: int,
    ) -> None:
        """Each chunk weighted as the vectorizer weights it, its entries sent to their buckets."""
        from scipy.sparse import csr_matrix  # type: ignore[import-untyped]
        from sklearn.feature_extraction.text import TfidfTransformer

        weigh = TfidfTransformer(
            norm="l2", use_idf=True, smooth_idf=True, sublinear_tf=TERM_SETTINGS["sublinear_tf"]
        )
        weigh.idf_ = idf
        with ExitStack() as stack:
            files = [
                [stack.enter_context(self._bucket(b, name).open("ab")) for name in SPILLED]
                for b in range(buckets)
            ]
            for chunk in self._chunks:
                rows, columns, counts = self._spilled(chunk)
                shape = (chunk.rows, len(column_of))
                local = rows - chunk.first_row
                counted = csr_matrix((counts, (local, column_of[columns])), shape=shape)
                weighted = weigh.transform(counted, copy=False).tocoo()
                _send(weighted, chunk.first_row, bucket_of, files)

    def _write_columns(self, path: Path, indptr: NDArray[np.int64], buckets: int) -> None:
        entries = int(indptr[-1])
        # One index dtype for both arrays: scipy then reopens them as they are, not copied.
        positions = np.int32 if entries < np.iinfo(np.int32).max else np.int64
        with (
            appended_npy(path / "keywords.data.npy", (entries,), WEIGHT_DTYPE) as data,
            appended_npy(path / "keywords.indices.npy", (entries,), positions) as indices,
        ):
            for bucket in range(buckets):
                rows, columns, weights = (
                    np.fromfile(self._bucket(bucket, name), dtype=dtype)
                    for name, dtype in zip(SPILLED, SPILLED_DTYPES, strict=True)
                )
                order = np.lexsort((rows, columns))
                weights[order].tofile(data)
                rows[order].astype(positions).tofile(indices)
                for name in SPILLED:
                    self._bucket(bucket, name).unlink()
        save_synced(path / "keywords.indptr.npy", indptr.astype(positions))

    def _bucket(self, bucket: int, name: str) -> Path:
        return self._scratch / f"bucket{bucket}.{name}"


def inverse_document_frequency(frequency: NDArray[np.int64], papers: int) -> NDArray[np.float32]:
    """Smoothed idf, computed as scikit-learn computes it (same dtype, same operations)."""
    smoothed = frequency.astype(WEIGHT_DTYPE) + WEIGHT_DTYPE(1.0)
    idf = np.full_like(smoothed, fill_value=papers + 1, dtype=WEIGHT_DTYPE)
    idf /= smoothed
    np.log(idf, out=idf)
    idf += WEIGHT_DTYPE(1.0)
    return idf


def _ordered(vocabulary: dict[str, int]) -> tuple[list[str], NDArray[np.int64]]:
    """The terms sorted, as the vectorizer orders its columns, and the column of each term's
    first-met number."""
    terms = sorted(vocabulary)
    column_of = np.empty(len(terms), dtype=np.int64)
    column_of[[vocabulary[term] for term in terms]] = np.arange(len(terms))
    return terms, column_of


def _send(weighted: Any, first_row: int, bucket_of: NDArray[np.int64], files: list[Any]) -> None:
    rows = (weighted.row + first_row).astype(np.int32)
    columns = weighted.col.astype(np.int32)
    weights = weighted.data.astype(WEIGHT_DTYPE)
    bucket = bucket_of[columns]
    order = np.argsort(bucket, kind="stable")
    starts = np.searchsorted(bucket[order], np.arange(len(files) + 1))
    for b, (start, end) in enumerate(pairwise(starts)):
        if end > start:
            chosen = order[start:end]
            for file, values in zip(files[b], (rows, columns, weights), strict=True):
                values[chosen].tofile(file)
