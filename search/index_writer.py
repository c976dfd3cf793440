"""Writing the search index of every stored paper as a generation of files, a chunk at a time.

The store is read in chunks of papers in id order; each chunk's vectors are appended to the
vectors file and its words counted (:mod:`search.keyword_columns`), so memory holds one chunk,
the ids and the terms, not every text and vector: the index of a million papers is written in
bounded memory. The files are those :mod:`search.index_files` opens; a new generation becomes
current only once every file is on disk.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import Paper, PaperAuthor, PaperCategory, PaperEmbedding
from app.core.vectors import stack
from search.index import NO_DATE, VECTOR_DTYPE, StoreState, searched_text, store_state
from search.index_files import (
    FORMAT,
    appended_npy,
    build_lock,
    current_state,
    publish,
    save_synced,
    write_lines,
    write_text,
)
from search.keyword_columns import KeywordColumns

# Papers read and written at a time: a chunk's texts and vectors stay a small part of memory.
CHUNK_PAPERS = 20_000


class BadStoredVectorError(ValueError):
    """A stored vector that does not fit the others; the message names the paper."""


@dataclass(frozen=True, slots=True)
class Written:
    generation: str
    papers: int
    seconds: float  # building and writing

    def line(self) -> str:
        return f"search index: {self.papers} papers written in {self.seconds:.1f} s"


@dataclass(slots=True)
class _Chunk:
    """What the index keeps of some consecutive papers; rows count from the chunk's first."""

    texts: list[str]
    announced: NDArray[np.int64]
    has_vector: NDArray[np.bool_]
    vectors: NDArray[np.float32]
    categories: dict[str, list[int]] = field(default_factory=dict)


def write_search_index(
    session: Session, directory: Path, model: str, chunk_papers: int = CHUNK_PAPERS
) -> Written:
    """Write the index of every stored paper and make it the current generation."""
    started = time.perf_counter()
    papers = 0

    def fill(path: Path) -> None:
        nonlocal papers
        papers = write_generation(session, path, model, chunk_papers)

    generation = publish(directory, fill)
    return Written(generation, papers, time.perf_counter() - started)


def refresh_search_index(session: Session, directory: Path, model: str) -> Written | None:
    """Write the index unless the current generation is already that of the store (None)."""
    with build_lock(directory):
        if current_state(directory, model) == store_state(session, model):
            return None
        return write_search_index(session, directory, model)


def write_generation(session: Session, path: Path, model: str, chunk_papers: int) -> int:
    """Every file of a generation into ``path``; returns the number of papers written."""
    state = store_state(session, model)
    ids = list(session.scalars(select(Paper.arxiv_id).order_by(Paper.arxiv_id)))
    dimensions = session.scalar(
        select(PaperEmbedding.dimensions).where(PaperEmbedding.model == model).limit(1)
    )
    # No vector at all: one column of zeros, so that the arrays keep their shapes.
    width = dimensions or 1
    announced = np.full(len(ids), NO_DATE, dtype=np.int64)
    has_vector = np.zeros(len(ids), dtype=bool)
    categories: dict[str, list[int]] = {}
    keywords = KeywordColumns(path / ".keyword-counts")
    with appended_npy(path / "vectors.npy", (len(ids), width), VECTOR_DTYPE) as vectors:
        for start in range(0, len(ids), chunk_papers):
            chunk = _read_chunk(session, ids[start : start + chunk_papers], model, width)
            keywords.add(chunk.texts)
            announced[start : start + len(chunk.texts)] = chunk.announced
            has_vector[start : start + len(chunk.texts)] = chunk.has_vector
            chunk.vectors.tofile(vectors)
            for category, rows in chunk.categories.items():
                categories.setdefault(category, []).extend(start + row for row in rows)
    terms = keywords.write(path)
    write_lines(path / "ids.txt", ids)
    save_synced(path / "announced.npy", announced)
    save_synced(path / "has_vector.npy", has_vector)
    _write_categories(path, categories)
    if terms:
        write_lines(path / "terms.txt", terms)
    _write_meta(path, model, len(ids), width, len(terms), state)
    return len(ids)


def _read_chunk(session: Session, ids: Sequence[str], model: str, width: int) -> _Chunk:
    """These papers (consecutive in id order) as the index keeps them. A paper stored after
    the ids were read is left for the next generation; one deleted since has no words."""
    position = {arxiv_id: row for row, arxiv_id in enumerate(ids)}
    first, last = ids[0], ids[-1]
    names: list[list[str]] = [[] for _ in ids]
    for arxiv_id, name in session.execute(
        select(PaperAuthor.arxiv_id, PaperAuthor.name).where(
            PaperAuthor.arxiv_id.between(first, last)
        )
    ):
        if arxiv_id in position:
            names[position[arxiv_id]].append(name)
    chunk = _Chunk(
        texts=[""] * len(ids),
        announced=np.full(len(ids), NO_DATE, dtype=np.int64),
        has_vector=np.zeros(len(ids), dtype=bool),
        vectors=np.zeros((len(ids), width), dtype=VECTOR_DTYPE),
    )
    for paper in session.execute(
        select(Paper.arxiv_id, Paper.title, Paper.abstract, Paper.announced_on).where(
            Paper.arxiv_id.between(first, last)
        )
    ):
        row = position.get(paper.arxiv_id)
        if row is not None:
            chunk.texts[row] = searched_text(paper.title, paper.abstract, " ".join(names[row]))
            if paper.announced_on is not None:
                chunk.announced[row] = paper.announced_on.toordinal()
    _read_categories(session, chunk, position, (first, last))
    _read_vectors(session, chunk, position, (first, last), model)
    return chunk


def _read_categories(
    session: Session, chunk: _Chunk, position: dict[str, int], span: tuple[str, str]
) -> None:
    for arxiv_id, category in session.execute(
        select(PaperCategory.arxiv_id, PaperCategory.category).where(
            PaperCategory.arxiv_id.between(*span)
        )
    ):
        if arxiv_id in position:
            chunk.categories.setdefault(category, []).append(position[arxiv_id])


def _read_vectors(
    session: Session, chunk: _Chunk, position: dict[str, int], span: tuple[str, str], model: str
) -> None:
    found = session.execute(
        select(PaperEmbedding.arxiv_id, PaperEmbedding.dimensions, PaperEmbedding.vector).where(
            PaperEmbedding.model == model, PaperEmbedding.arxiv_id.between(*span)
        )
    ).all()
    kept = [row for row in found if row.arxiv_id in position]
    if not kept:
        return
    width = chunk.vectors.shape[1]
    for row in kept:
        size = row.dimensions * np.dtype(VECTOR_DTYPE).itemsize
        if len(row.vector) != size:
            raise BadStoredVectorError(
                f"{row.arxiv_id}: a vector of {len(row.vector)} bytes under {model} where its "
                f"{row.dimensions} dimensions need {size}: it is damaged"
            )
        if row.dimensions != width:
            raise BadStoredVectorError(
                f"{row.arxiv_id}: {row.dimensions} dimensions under {model}, where others "
                f"have {width}: embed the papers again with one model"
            )
    rows = np.array([position[row.arxiv_id] for row in kept], dtype=np.int64)
    chunk.vectors[rows] = stack([row.vector for row in kept], width)
    chunk.has_vector[rows] = True


def _write_categories(path: Path, categories: dict[str, list[int]]) -> None:
    names = sorted(categories)
    rows = [np.sort(np.asarray(categories[name], dtype=np.int64)) for name in names]
    write_lines(path / "categories.txt", names)
    offsets = np.concatenate([[0], np.cumsum([len(found) for found in rows])])
    save_synced(path / "category_offsets.npy", offsets.astype(np.int64))
    save_synced(path / "category_rows.npy", np.concatenate([np.zeros(0, np.int64), *rows]))


def _write_meta(
    path: Path, model: str, papers: int, dimensions: int, terms: int, state: StoreState
) -> None:
    meta = {
        "format": FORMAT,
        "model": model,
        "papers": papers,
        "dimensions": dimensions,
        "terms": terms,
        "store_papers": state.papers,
        "fingerprint": state.fingerprint,
    }
    # Last: a generation with its meta.json holds every other file.
    write_text(path / "meta.json", json.dumps(meta, indent=1))
