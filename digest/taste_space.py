"""The taste space: a linear map of paper embeddings in which one author's papers lie closer.

The embedding model was trained to place texts of the same meaning together, not papers by
the same people: to it, two papers on language models are close whoever wrote them. The
profile match (:mod:`digest.profile_match`) asks another question, "which of today's papers
is this reader's kind of paper", and a linear map learned on real (author, day) pairs answers
it better (docs/ranking.md, "Personal ranking": the embedding mean cosine alone finds 0.34 of
the authors' own papers in the top 10 on 2025 pairs, 0.42 in this space).

The map is ``normalise(W (x - centre))``: ``centre`` is the mean training embedding (the
direction every paper shares, which says nothing about whose it is), ``W`` is learned by
:mod:`app.services.taste_training`. It is only valid for the embedding model it was trained
on; for any other, :func:`space_for` gives None and the raw embeddings are used.

The artifact is JSON (never pickle): metadata, and the float32 matrix and centre in base64.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from app.core.vectors import Matrix

ARTIFACT_FORMAT = 1
SHIPPED_ARTIFACT = "taste-space-2026-01-01.json"


class TasteSpaceError(ValueError):
    """A taste-space file that cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class TasteSpace:
    """The learned map, and what it was trained on (for the record and the checks)."""

    model: str  # the embedding model whose vectors it maps
    trained_from: str
    trained_until: str
    settings: dict[str, Any]
    matrix: NDArray[np.float32]  # (out, in)
    centre: NDArray[np.float32]  # (in,)

    @property
    def dimensions(self) -> int:
        return int(self.matrix.shape[1])

    def apply(self, vectors: Matrix) -> Matrix:
        """Each row mapped into the space, unit length (a zero row stays zero)."""
        if len(vectors) == 0:
            return np.zeros((0, self.matrix.shape[0]), dtype=np.float32)
        if vectors.shape[1] != self.dimensions:
            raise TasteSpaceError(
                f"taste space of {self.model} maps {self.dimensions} dimensions, "
                f"not {vectors.shape[1]}"
            )
        present = vectors.any(axis=1)  # a zero row: a paper without an embedding
        mapped = (vectors.astype(np.float32) - self.centre) @ self.matrix.T
        norms = np.linalg.norm(mapped, axis=1, keepdims=True)
        mapped = np.divide(mapped, norms, out=np.zeros_like(mapped), where=norms > 0)
        mapped[~present] = 0.0
        return np.asarray(mapped, dtype=np.float32)


def save_space(space: TasteSpace, path: Path) -> None:
    """Write the artifact whole or not at all (a temporary file renamed over ``path``)."""
    fields = {
        "format": ARTIFACT_FORMAT,
        "model": space.model,
        "trained_from": space.trained_from,
        "trained_until": space.trained_until,
        "settings": space.settings,
        "shape": list(space.matrix.shape),
        "matrix": _encode(space.matrix),
        "centre": _encode(space.centre),
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
    return _parse(path.read_text(encoding="utf-8"))


@cache
def _shipped() -> TasteSpace:
    return _parse(resources.files("digest").joinpath("models", SHIPPED_ARTIFACT).read_text())


def _parse(text: str) -> TasteSpace:
    try:
        fields = json.loads(text)
    except json.JSONDecodeError as error:
        raise TasteSpaceError(f"not a taste-space artifact: {error}") from None
    if not isinstance(fields, dict):
        raise TasteSpaceError("not a taste-space artifact: not a JSON object")
    if fields.get("format") != ARTIFACT_FORMAT or isinstance(fields.get("format"), bool):
        raise TasteSpaceError(f"taste-space format {fields.get('format')!r} is not known")
    try:
        rows, columns = (int(n) for n in fields["shape"])
        matrix = _decode(fields["matrix"]).reshape(rows, columns)
        centre = _decode(fields["centre"]).reshape(columns)
        texts = [fields[name] for name in ("model", "trained_from", "trained_until")]
        settings = dict(fields["settings"])
    except TasteSpaceError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise TasteSpaceError(f"not a taste-space artifact: {error!r}") from None
    if not all(isinstance(text, str) and text for text in texts):
        raise TasteSpaceError("not a taste-space artifact: model and dates must be named")
    if rows < 1 or columns < 1 or not (np.isfinite(matrix).all() and np.isfinite(centre).all()):
        raise TasteSpaceError("not a taste-space artifact: empty, or values that are not finite")
    matrix.flags.writeable = centre.flags.writeable = False  # shared by every reader of it
    return TasteSpace(texts[0], texts[1], texts[2], settings, matrix, centre)


def space_for(model: str) -> TasteSpace | None:
    """The shipped taste space where it maps vectors of embedding ``model``, else None (the
    raw embeddings are used)."""
    space = load_space()
    return space if space.model == model else None


def _encode(values: NDArray[np.float32]) -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f4").tobytes()).decode("ascii")


def _decode(text: str) -> NDArray[np.float32]:
    raw = base64.b64decode(text.encode("ascii"), validate=True)
    if len(raw) % 4:
        raise TasteSpaceError("taste-space values are not whole float32 numbers")
    return np.frombuffer(raw, dtype="<f4").astype(np.float32)
