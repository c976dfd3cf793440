"""The search index of every stored paper: ids, dates, categories, keyword terms and vectors.

Building it from documents is pure (:func:`make_index`; the search evaluation,
``benchmarks/search_eval.py``, calls it on the whole corpus); :func:`build_index` reads the
documents and vectors from the database. Searching it lives in :mod:`search.in_process`; keeping
it on disk between processes in :mod:`search.index_files`. scikit-learn is imported only
here, and only when an index is built or its terms are reopened (web processes start
without it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import Paper, PaperAuthor, PaperCategory, PaperEmbedding
from app.core.vectors import stack

NO_DATE = -1
# Vectors are held (and saved) as float32, as stored. float16 would halve the file, but numpy
# converts float16 element by element (no BLAS): scoring the corpus's vectors takes several
# times as long as the float32 product itself, more than the query's whole time budget.
VECTOR_DTYPE = np.float32
# How the keyword index reads text; the same settings rebuild it from a saved vocabulary.
TERM_SETTINGS: dict[str, Any] = {
    "stop_words": "english",
    "sublinear_tf": True,
    "dtype": np.float32,
    "min_df": 1,
    "strip_accents": "unicode",
}

Vectors = NDArray[Any]


@dataclass(frozen=True, slots=True)
class Document:
    """What search reads of a paper."""

    arxiv_id: str
    title: str
    abstract: str
    authors: str
    announced_on: date | None
    categories: tuple[str, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class StoreState:
    """What the index was built from: it is current while the store still says the same."""

    papers: int
    fingerprint: str


@dataclass(frozen=True)
class Index:
    ids: list[str]
    position: dict[str, int]
    announced: NDArray[np.int64]
    by_category: dict[str, NDArray[np.int64]]
    terms: Any  # a fitted TfidfVectorizer; None when no paper has a word yet
    keyword_matrix: Any  # papers x terms, CSC
    vectors: Vectors  # one row per paper (zeros where it has none), unit length
    has_vector: NDArray[np.bool_]
    paper_count: int
    state: StoreState | None = None  # None: made from documents, not from a store
    generation: str | None = None  # the saved generation it was opened from, if any


def make_index(
    documents: Sequence[Document],
    vectors: Vectors,
    has_vector: NDArray[np.bool_],
    state: StoreState | None = None,
) -> Index:
    """The index of these papers; row i of ``vectors`` is the i-th document's (if it has one)."""
    ids = [document.arxiv_id for document in documents]
    texts = [searched_text(d.title, d.abstract, d.authors) for d in documents]
    terms, matrix = _keyword_index(texts)
    rows: dict[str, list[int]] = {}
    for row, document in enumerate(documents):
        for category in document.categories:
            rows.setdefault(category, []).append(row)
    announced = [
        NO_DATE if d.announced_on is None else d.announced_on.toordinal() for d in documents
    ]
    return Index(
        ids=ids,
        position={arxiv_id: row for row, arxiv_id in enumerate(ids)},
        announced=np.array(announced, dtype=np.int64),
        by_category={category: np.array(found, dtype=np.int64) for category, found in rows.items()},
        terms=terms,
        keyword_matrix=matrix,
        vectors=vectors,
        has_vector=has_vector,
        paper_count=len(ids),
        state=state,
    )


def searched_text(title: str, abstract: str, authors: str) -> str:
    """What the keyword index reads of a paper; the title twice: its words say more about
    the paper than the abstract's."""
    return f"{title} {title} {abstract} {authors}"


def closeness(vectors: Vectors, query: NDArray[Any]) -> NDArray[np.float32]:
    """Each row's dot product with ``query`` (cosine for unit rows), as float32.

    A plain ndarray, not a memmap, even when ``vectors`` is one (a product of a memmap is).
    """
    scores: NDArray[np.float32] = np.asarray(vectors @ np.asarray(query, dtype=np.float32))
    return scores


def store_state(session: Session, model: str) -> StoreState:
    """The number of papers and a fingerprint of their vectors under ``model``.

    Adding papers changes the count; the embed step storing vectors (new papers, or new text
    for a replaced version) changes the fingerprint. Cheap once the store's pages are
    cached.
    """
    papers = session.scalar(select(func.count()).select_from(Paper)) or 0
    vectors, newest = session.execute(
        select(func.count(), func.max(PaperEmbedding.computed_at)).where(
            PaperEmbedding.model == model
        )
    ).one()
    stamp = newest.isoformat() if newest is not None else "none"
    return StoreState(papers, f"{model}|papers {papers}|vectors {vectors}|newest {stamp}")


def build_index(session: Session, model: str) -> Index:
    """The index of every stored paper, with its vectors under ``model``."""
    state = store_state(session, model)
    rows = session.execute(
        select(Paper.arxiv_id, Paper.title, Paper.abstract, Paper.announced_on).order_by(
            Paper.arxiv_id
        )
    ).all()
    position = {row.arxiv_id: i for i, row in enumerate(rows)}
    names = _joined(session.execute(select(PaperAuthor.arxiv_id, PaperAuthor.name)), position)
    categories = _joined(
        session.execute(select(PaperCategory.arxiv_id, PaperCategory.category)), position
    )
    documents = [
        Document(
            arxiv_id=r.arxiv_id,
            title=r.title,
            abstract=r.abstract,
            authors=" ".join(names[i]),
            announced_on=r.announced_on,
            categories=tuple(categories[i]),
        )
        for i, r in enumerate(rows)
    ]
    vectors, has_vector = _vectors(session, model, position)
    return make_index(documents, vectors, has_vector, state)


def reopen_terms(vocabulary: list[str], idf: NDArray[np.float64]) -> Any:
    """The fitted vectorizer again, from its terms (in column order) and their idf."""
    from sklearn.feature_extraction.text import TfidfVectorizer  # heavy; only when searching

    terms = TfidfVectorizer(
        **TERM_SETTINGS, vocabulary={term: i for i, term in enumerate(vocabulary)}
    )
    terms.idf_ = idf
    return terms


def _joined(rows: Any, position: dict[str, int]) -> list[list[str]]:
    parts: list[list[str]] = [[] for _ in position]
    for arxiv_id, value in rows:
        if arxiv_id in position:
            parts[position[arxiv_id]].append(value)
    return parts


def _keyword_index(texts: list[str]) -> tuple[Any, Any]:
    from sklearn.feature_extraction.text import TfidfVectorizer  # heavy; only when searching

    terms = TfidfVectorizer(**TERM_SETTINGS)
    try:
        matrix = terms.fit_transform(texts or [""]).tocsc()
    except ValueError:
        # No word at all: a new deployment with no papers yet. Nothing matches any query.
        return None, None
    return terms, matrix


def _vectors(
    session: Session, model: str, position: dict[str, int]
) -> tuple[Vectors, NDArray[np.bool_]]:
    rows = session.execute(
        select(PaperEmbedding.arxiv_id, PaperEmbedding.dimensions, PaperEmbedding.vector).where(
            PaperEmbedding.model == model
        )
    ).all()
    has_vector = np.zeros(len(position), dtype=bool)
    if not rows:
        return np.zeros((len(position), 1), dtype=VECTOR_DTYPE), has_vector
    found = stack([row.vector for row in rows], rows[0].dimensions)
    vectors = np.zeros((len(position), rows[0].dimensions), dtype=VECTOR_DTYPE)
    for row, vector in zip(rows, found, strict=True):
        if row.arxiv_id in position:
            vectors[position[row.arxiv_id]] = vector
            has_vector[position[row.arxiv_id]] = True
    return vectors, has_vector
