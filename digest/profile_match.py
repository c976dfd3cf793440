"""How close each paper of a pool is to one reader's profile, by content alone (pure).

A profile is a set of papers the reader cares about: their thumbs up in the digest, an author's
own earlier papers in ``paperboy eval-personal``. Four similarities of a pool paper to the
profile are measured: the mean and the best cosine of its embedding to the profile's (in the
taste space, :mod:`digest.taste_space`, where one learned for the model exists), and the
mean and the best cosine of its tf-idf (title and abstract) to the profile's. Embeddings catch
papers on the same subject in other words; tf-idf catches the rare words (a method's name, a
data set) that an embedding of 384 numbers blurs; the best match serves readers with several
interests, the mean one a reader with one. Each similarity is z-scored within the pool, so
that none dominates by its scale, and the four are averaged with the weights below (chosen on
2025 (author, day) pairs, see docs/ranking.md, "Personal ranking").

The tf-idf is fitted on the pool itself, once per pool (an edition, a day): a daily run has no
corpus-wide fit to lean on, and only words present in the pool can match a pool paper anyway.
Its idf is then the pool's: a word frequent in that day's papers counts for little that day.

scikit-learn loads in about a second, so it is imported when a pool is first indexed, never
when this module is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from app.core.vectors import Matrix
from digest.taste_space import LEXICAL_TERMS, TasteSpace, TasteSpaceError

# Weights of the z-scored similarities: embedding mean, embedding best, tf-idf mean, tf-idf best.
# The mean in the taste space counts twice: a little better on three draws of 2025 pairs
# (docs/ranking.md); without the space, any weights from 0 to 2 were within noise.
WEIGHTS = (2.0, 1.0, 1.0, 1.0)
# The tf-idf of arxiv-sanity-lite (compute.py) minus its corpus-wide document-frequency cuts,
# which a pool of a few hundred papers is too small for.
TERMS: dict[str, Any] = LEXICAL_TERMS | {"sublinear_tf": True}

Scores = NDArray[np.float64]


def paper_text(title: str, abstract: str) -> str:
    """What the tf-idf reads of a paper: its title and abstract."""
    return f"{title} {abstract}"


@dataclass(frozen=True, slots=True)
class PoolIndex:
    """A pool's embeddings and tf-idf, worked out once and matched against many profiles."""

    texts: Sequence[str]
    vectors: Matrix
    # Where embeddings are compared (digest.taste_space); None: as the model gives them.
    space: TasteSpace | None = None
    _mapped: Matrix = field(init=False, repr=False, compare=False)
    _missing: NDArray[np.bool_] = field(init=False, repr=False, compare=False)
    _vectorizer: Any = field(init=False, repr=False, compare=False)
    # The pool's tf-idf transposed (terms by papers): a profile paper's few terms then pick
    # the few pool papers that have them, instead of every pool paper being walked through.
    _papers_of_term: Any = field(init=False, repr=False, compare=False)
    # Profile papers' tf-idf rows by text: readers of one run share liked papers, and reading
    # a text costs more than the rest of a reader's match.
    _rows: dict[str, tuple[NDArray[np.int32], NDArray[np.float64]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    # Profile papers' lexical vectors in the taste space, by text, for the same reason.
    _lexical_rows: dict[str, NDArray[np.float32]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        vectorizer = TfidfVectorizer(**TERMS)
        try:
            terms = vectorizer.fit_transform(self.texts)
        except ValueError:  # no pool paper has a word beyond stop words (or no paper at all)
            vectorizer, terms = None, None
        object.__setattr__(self, "_mapped", self._map(self.vectors, self.texts))
        object.__setattr__(self, "_missing", ~self.vectors.any(axis=1))
        object.__setattr__(self, "_vectorizer", vectorizer)
        object.__setattr__(self, "_papers_of_term", None if terms is None else terms.T.tocsr())

    def _map(self, vectors: Matrix, texts: Sequence[str]) -> Matrix:
        # Vectors of another size are not the space's model's (a test's, a model changed
        # since): they are compared as they are.
        if self.space is None or vectors.shape[1] != self.space.dimensions:
            return vectors
        if self.space.lexicon is None:
            return self.space.apply(vectors)
        if len(texts) != len(vectors):
            raise TasteSpaceError(f"{len(texts)} texts for {len(vectors)} papers")
        return self.space.apply(vectors, lexical=self._lexical(texts))

    def _lexical(self, texts: Sequence[str]) -> Matrix:
        """The texts' lexical vectors, each text read once for every reader of the pool."""
        assert self.space is not None and self.space.lexicon is not None
        new = [text for text in dict.fromkeys(texts) if text not in self._lexical_rows]
        self._lexical_rows.update(zip(new, self.space.lexicon.vectors(new), strict=True))
        return np.array([self._lexical_rows[text] for text in texts], dtype=np.float32)

    def vector_similarities(self, vectors: Matrix, texts: Sequence[str]) -> NDArray[np.float32]:
        """Cosine of each pool paper's embedding (rows) to each profile paper's (columns), in
        the taste space where there is one (which also reads the profile papers' ``texts``)."""
        similarities = np.asarray(self._mapped @ self._map(vectors, texts).T, dtype=np.float32)
        # A paper without an embedding (a zero row) is the farthest in meaning: in the taste
        # space, centred, a cosine of 0 would be about the pool's average.
        missing = self._missing
        if missing.any() and not missing.all() and similarities.shape[1]:
            similarities[missing] = similarities[~missing].min(axis=0)
        return similarities

    def term_similarities(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Cosine of each pool paper's tf-idf (rows) to each profile text's (columns)."""
        if self._vectorizer is None or not texts:
            return np.zeros((len(self.texts), len(texts)), dtype=np.float32)
        from scipy.sparse import csr_matrix  # type: ignore[import-untyped]

        self._remember([text for text in texts if text not in self._rows])
        rows = [self._rows[text] for text in texts]
        starts = np.cumsum([0] + [len(terms) for terms, _ in rows])
        profile = csr_matrix(
            (np.concatenate([w for _, w in rows]), np.concatenate([t for t, _ in rows]), starts),
            shape=(len(texts), self._papers_of_term.shape[0]),
        )
        return np.asarray((profile @ self._papers_of_term).toarray().T, dtype=np.float32)

    def _remember(self, texts: list[str]) -> None:
        """Keep the tf-idf terms and weights of texts never read before, as plain arrays."""
        if not texts:
            return
        rows = self._vectorizer.transform(list(dict.fromkeys(texts)))
        for index, text in enumerate(dict.fromkeys(texts)):
            part = slice(rows.indptr[index], rows.indptr[index + 1])
            self._rows[text] = (rows.indices[part], rows.data[part])

    def match(self, texts: Sequence[str], vectors: Matrix) -> Scores:
        """One score per pool paper, higher for closer to the profile of ``texts``/``vectors``
        (the same papers in the same order); zeros for an empty profile."""
        return fuse(self.vector_similarities(vectors, texts), self.term_similarities(texts))


def fuse(
    vector_similarities: NDArray[np.floating], term_similarities: NDArray[np.floating]
) -> Scores:
    """The weighted mean of the four z-scored similarities (pool rows, profile columns)."""
    rows = vector_similarities.shape[0]
    if vector_similarities.shape[1] == 0 or rows == 0:
        return np.zeros(rows, dtype=np.float64)
    parts = (
        vector_similarities.mean(axis=1),
        vector_similarities.max(axis=1),
        term_similarities.mean(axis=1),
        term_similarities.max(axis=1),
    )
    total = sum(weight * _z(part) for weight, part in zip(WEIGHTS, parts, strict=True))
    return np.asarray(total, dtype=np.float64) / sum(WEIGHTS)


def _z(values: NDArray[np.floating]) -> Scores:
    """Standard scores within the pool; all zeros when every paper scores the same."""
    values = values.astype(np.float64)
    spread = float(values.std())
    return (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)
