"""The taste space: a learned map of paper embeddings and words in which one author's papers
lie closer.

The embedding model was trained to place texts of the same meaning together, not papers by
the same people: to it, two papers on language models are close whoever wrote them. The
profile match (:mod:`digest.profile_match`) asks another question, "which of today's papers
is this reader's kind of paper", and a map learned on real (author, day) pairs answers it
better (docs/ranking.md, "Personal ranking": the mean cosine to the profile alone finds more of
the authors' own papers in the top 10 in this space than with the raw embeddings).

A paper enters the space as its embedding joined with its *lexical vector*: its tf-idf (title
and abstract, words and word pairs, the vocabulary and idf of the training corpus) projected
to a few dimensions by a learned matrix (started from the corpus's LSA). The words catch what
the embedding's 384 numbers blur (a method's or a data set's name); the projection, learned on
the same pairs, learns which words say whose paper it is. The map is
``normalise(W [x - centre; lexical(text) - lexical centre])``; ``W`` and the projection are
learned by :mod:`app.services.taste_training`. A space may have no lexical part (format 1):
then it maps the embedding alone. It is only valid for the embedding model it was trained on;
for any other, :func:`space_for` gives None and the raw embeddings are used.

The artifact is JSON (never pickle): metadata, the vocabulary, and the matrices in base64
(float32; the projection float16, which halves the file and moves a cosine by about 1e-3).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from app.core.vectors import Matrix

FORMATS = (1, 2)  # 1: the embedding alone; 2: with a lexical part
SHIPPED_ARTIFACT = "taste-space-2026-01-01.json"
# How the lexical part reads a text: arxiv-sanity-lite's tf-idf (compute.py), as the anchor of
# eval-personal; the vocabulary and its cuts are the training corpus's.
LEXICAL_TERMS: dict[str, Any] = {
    "strip_accents": "unicode",
    "lowercase": True,
    "stop_words": "english",
    "token_pattern": r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b",
    "ngram_range": (1, 2),
}


class TasteSpaceError(ValueError):
    """A taste-space file that cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class Lexicon:
    """A text's lexical vector: its tf-idf over ``vocabulary`` (sublinear counts times ``idf``,
    unit length) times ``projection``, unit length; then ``centre`` is taken away."""

    vocabulary: tuple[str, ...]
    idf: NDArray[np.float32]  # (terms,)
    projection: NDArray[np.float32]  # (terms, dimensions)
    centre: NDArray[np.float32]  # (dimensions,)
    _counter: Any = field(default=None, init=False, repr=False, compare=False)

    def _counts(self, texts: Sequence[str]) -> Any:
        # Built on first use, not on load: checking the shipped file as a web process starts
        # then costs no scikit-learn import.
        if self._counter is None:
            from sklearn.feature_extraction.text import CountVectorizer

            terms = {term: column for column, term in enumerate(self.vocabulary)}
            counter = CountVectorizer(**LEXICAL_TERMS, vocabulary=terms)
            object.__setattr__(self, "_counter", counter)
        return self._counter.transform(list(texts))

    @property
    def dimensions(self) -> int:
        return int(self.projection.shape[1])

    def tfidf(self, texts: Sequence[str]) -> Any:
        """The texts' tf-idf rows (scipy CSR), as the training corpus's vectorizer gives them."""
        from sklearn.preprocessing import normalize

        counts = self._counts(texts).astype(np.float32)
        counts.data = 1.0 + np.log(counts.data)  # sublinear counts, as arxiv-sanity-lite
        return normalize(counts.multiply(self.idf).tocsr(), copy=False)

    def vectors(self, texts: Sequence[str]) -> Matrix:
        """Each text's lexical vector, centred (a text of no known word: minus the centre)."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        projected = np.asarray(self.tfidf(texts) @ self.projection, dtype=np.float32)
        return _unit(projected) - self.centre


@dataclass(frozen=True, slots=True)
class TasteSpace:
    """The learned map, and what it was trained on (for the record and the checks)."""

    model: str  # the embedding model whose vectors it maps
    trained_from: str
    trained_until: str
    settings: dict[str, Any]
    matrix: NDArray[np.float32]  # (out, embedding dimensions + lexical dimensions)
    centre: NDArray[np.float32]  # (embedding dimensions,)
    lexicon: Lexicon | None = None

    @property
    def dimensions(self) -> int:
        """The size of the embeddings it maps."""
        return int(self.centre.shape[0])

    def apply(
        self, vectors: Matrix, texts: Sequence[str] = (), lexical: Matrix | None = None
    ) -> Matrix:
        """Each paper mapped into the space, unit length, from its embedding (a row of
        ``vectors``) and, where the space has a lexical part, its title and abstract (the
        ``texts`` in the same order; or their ``Lexicon.vectors``, worked out beforehand). A
        paper without an embedding (a zero row) stays zero."""
        if len(vectors) == 0:
            return np.zeros((0, self.matrix.shape[0]), dtype=np.float32)
        if vectors.shape[1] != self.dimensions:
            raise TasteSpaceError(
                f"taste space of {self.model} maps {self.dimensions} dimensions, "
                f"not {vectors.shape[1]}"
            )
        present = vectors.any(axis=1)
        joined = vectors.astype(np.float32) - self.centre
        if self.lexicon is not None:
            if lexical is None:
                lexical = self.lexicon.vectors(texts)
            if len(lexical) != len(vectors):
                raise TasteSpaceError(
                    f"taste space of {self.model} reads each paper's text: "
                    f"{len(lexical)} texts for {len(vectors)} papers"
                )
            joined = np.hstack([joined, lexical])
        mapped = _unit(joined @ self.matrix.T)
        mapped[~present] = 0.0
        return mapped


def _unit(rows: NDArray[np.floating]) -> Matrix:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    unit = np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)
    return np.asarray(unit, dtype=np.float32)


def save_space(space: TasteSpace, path: Path) -> None:
    """Write the artifact whole or not at all (a temporary file renamed over ``path``)."""
    fields: dict[str, Any] = {
        "format": 1 if space.lexicon is None else 2,
        "model": space.model,
        "trained_from": space.trained_from,
        "trained_until": space.trained_until,
        "settings": space.settings,
        "shape": list(space.matrix.shape),
        "matrix": _encode(space.matrix),
        "centre": _encode(space.centre),
    }
    if space.lexicon is not None:
        if np.abs(space.lexicon.projection).max() > np.finfo(np.float16).max:
            raise TasteSpaceError("the lexical projection has values beyond float16: not saved")
        fields["lexicon"] = {
            "vocabulary": list(space.lexicon.vocabulary),
            "idf": _encode(space.lexicon.idf),
            "dimensions": space.lexicon.dimensions,
            "projection": _encode(space.lexicon.projection, "<f2"),
            "centre": _encode(space.lexicon.centre),
        }
    path.parent.mkdir(parents=True, exist_ok=True)
    written = path.with_name(f".{path.name}.tmp")
    try:
        written.write_text(json.dumps(fields, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        written.replace(path)
    finally:
        written.unlink(missing_ok=True)


def load_space(path: Path | None = None) -> TasteSpace:
    """The artifact at ``path``, or the one shipped with the package (read once)."""
    if path is None:
        return _shipped()
    if not path.is_file():
        raise TasteSpaceError(f"no such taste-space file: {path}")
    return _parse(_text(path))


@cache
def _shipped() -> TasteSpace:
    return _parse(_text(resources.files("digest").joinpath("models", SHIPPED_ARTIFACT)))


def _text(path: Path | Traversable) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TasteSpaceError(f"unreadable taste-space file: {error}") from None


def _parse(text: str) -> TasteSpace:
    try:
        fields = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise TasteSpaceError(f"not a taste-space artifact: {error!r}") from None
    if not isinstance(fields, dict):
        raise TasteSpaceError("not a taste-space artifact: not a JSON object")
    if fields.get("format") not in FORMATS or isinstance(fields.get("format"), bool):
        raise TasteSpaceError(f"taste-space format {fields.get('format')!r} is not known")
    try:
        rows, columns = (_size(n) for n in fields["shape"])
        matrix = _decode(fields["matrix"]).reshape(rows, columns)
        texts = [fields[name] for name in ("model", "trained_from", "trained_until")]
        settings = dict(fields["settings"])
        lexicon = _lexicon(fields["lexicon"]) if fields["format"] == 2 else None
        centre = _decode(fields["centre"])
    except TasteSpaceError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise TasteSpaceError(f"not a taste-space artifact: {error!r}") from None
    if not all(isinstance(text, str) and text for text in texts):
        raise TasteSpaceError("not a taste-space artifact: model and dates must be named")
    # The map reads the embedding joined with the lexical vector: its columns are both.
    if columns != centre.size + (0 if lexicon is None else lexicon.dimensions):
        raise TasteSpaceError(
            f"not a taste-space artifact: a map of {columns} columns for an embedding of "
            f"{centre.size} and {0 if lexicon is None else lexicon.dimensions} lexical dimensions"
        )
    if not centre.size or not _finite(matrix, centre):
        raise TasteSpaceError("not a taste-space artifact: empty, or values that are not finite")
    matrix.flags.writeable = centre.flags.writeable = False  # shared by every reader of it
    return TasteSpace(
        model=texts[0],
        trained_from=texts[1],
        trained_until=texts[2],
        settings=settings,
        matrix=matrix,
        centre=centre,
        lexicon=lexicon,
    )


def _size(value: object) -> int:
    """A matrix size from the file: a whole number of at least 1 (not 2.5, -1 or Infinity)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise TasteSpaceError(f"not a taste-space artifact: {value!r} is not a size")
    return value


def _lexicon(fields: dict[str, Any]) -> Lexicon:
    vocabulary = fields["vocabulary"]
    if not isinstance(vocabulary, list) or not vocabulary:
        raise TasteSpaceError("not a taste-space artifact: the vocabulary must be a list of words")
    if not all(isinstance(term, str) and term for term in vocabulary):
        raise TasteSpaceError("not a taste-space artifact: the vocabulary must be words")
    if len(set(vocabulary)) != len(vocabulary):  # a term twice: its columns would be ambiguous
        raise TasteSpaceError("not a taste-space artifact: a word is twice in the vocabulary")
    dimensions = _size(fields["dimensions"])
    projection = _decode(fields["projection"], "<f2").reshape(len(vocabulary), dimensions)
    idf = _decode(fields["idf"]).reshape(len(vocabulary))
    centre = _decode(fields["centre"]).reshape(dimensions)
    if not _finite(idf, projection, centre):
        raise TasteSpaceError("not a taste-space artifact: empty, or values that are not finite")
    for values in (idf, projection, centre):
        values.flags.writeable = False
    return Lexicon(vocabulary=tuple(vocabulary), idf=idf, projection=projection, centre=centre)


def _finite(*arrays: NDArray[np.float32]) -> bool:
    return all(bool(np.isfinite(values).all()) for values in arrays)


def space_for(model: str) -> TasteSpace | None:
    """The shipped taste space where it maps vectors of embedding ``model``, else None (the
    raw embeddings are used)."""
    space = load_space()
    return space if space.model == model else None


def _encode(values: NDArray[np.float32], kind: str = "<f4") -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype=kind).tobytes()).decode("ascii")


def _decode(text: str, kind: str = "<f4") -> NDArray[np.float32]:
    raw = base64.b64decode(text.encode("ascii"), validate=True)
    width = np.dtype(kind).itemsize
    if len(raw) % width:
        raise TasteSpaceError(f"taste-space values are not whole {8 * width}-bit numbers")
    return np.frombuffer(raw, dtype=kind).astype(np.float32)
