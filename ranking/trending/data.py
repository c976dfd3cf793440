"""Read the trending model's inputs from files: corpus papers, label records, embeddings.

The corpus is the daily-listing JSON-lines format (``listing_dates[0]`` is the announcement
day), parsed by :mod:`ingest.snapshot`; labels are Hugging Face Daily Papers records.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from ingest.records import RecordError
from ingest.snapshot import parse_snapshot_record
from ranking.scoring import Candidate


class TrendingDataError(ValueError):
    """An input file that cannot be used; the message names the file and the reason."""


@dataclass(frozen=True, slots=True)
class LabelRecord:
    """One paper featured on Hugging Face Daily Papers on ``featured_on``."""

    arxiv_id: str
    featured_on: date
    upvotes: int
    authors: tuple[str, ...]


def _open_text(path: Path) -> IO[str]:
    if not path.is_file():
        raise TrendingDataError(f"no such file: {path}")
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def _json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    with _open_text(path) as stream:
        try:
            for number, line in enumerate(stream, start=1):
                if line.strip():
                    yield number, _decode(path, number, line)
        except (OSError, EOFError) as error:
            raise TrendingDataError(f"{path}: unreadable: {error}") from None


def _decode(path: Path, number: int, line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise TrendingDataError(f"{path}:{number}: not JSON: {error.msg}") from None


def load_corpus(path: Path) -> list[Candidate]:
    """Every paper with an announcement day, as a candidate of that day, in file order."""
    papers: list[Candidate] = []
    for number, raw in _json_lines(path):
        try:
            record = parse_snapshot_record(raw)
        except RecordError as error:
            raise TrendingDataError(f"{path}:{number}: {error}") from None
        if record.announced_on is None:
            raise TrendingDataError(f"{path}:{number}: no listing_dates (announcement day)")
        papers.append(
            Candidate(
                arxiv_id=record.arxiv_id,
                title=record.title,
                abstract=record.abstract,
                authors=record.authors,
                categories=record.categories,
                primary_category=record.primary_category,
                comment=record.comment,
                announced_on=record.announced_on,
            )
        )
    return papers


def load_labels(paths: Sequence[Path]) -> list[LabelRecord]:
    """Label records of every file, in file order."""
    return [_label(path, number, raw) for path in paths for number, raw in _json_lines(path)]


def _label(path: Path, number: int, raw: Any) -> LabelRecord:
    try:
        authors = raw.get("authors") or []
        return LabelRecord(
            arxiv_id=str(raw["arxiv_id"]).strip(),
            featured_on=date.fromisoformat(raw["daily_date"]),
            upvotes=int(raw.get("upvotes") or 0),
            authors=tuple(str(name) for name in authors),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise TrendingDataError(f"{path}:{number}: bad label record: {error!r}") from None


def load_embeddings(path: Path) -> dict[str, NDArray[np.float32]]:
    """Precomputed embeddings: ``X.npy`` rows named by the ids in ``X.ids.json`` beside it."""
    ids_path = path.with_name(path.name.removesuffix(".npy").removesuffix(".f16") + ".ids.json")
    if not path.is_file() or not ids_path.is_file():
        raise TrendingDataError(f"embeddings need both {path} and {ids_path}")
    matrix = np.load(path, allow_pickle=False)
    ids = json.loads(ids_path.read_text(encoding="utf-8"))
    if not isinstance(ids, list) or matrix.ndim != 2 or len(ids) != matrix.shape[0]:
        raise TrendingDataError(f"{path}: {matrix.shape} rows do not match {len(ids)} ids")
    rows = matrix.astype(np.float32)
    return {str(arxiv_id): rows[index] for index, arxiv_id in enumerate(ids)}
